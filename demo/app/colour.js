// The demo's MCP App: a colour picker, written with the official App class of
// @modelcontextprotocol/ext-apps. It starts from the tool's input, follows the host's theme and
// style variables, saves a pick through the app-only tool `set_colour`, and can hand the pick
// to the chat as the person's next message.
import { App } from '@modelcontextprotocol/ext-apps';

const PRESETS = ['#3366ff', '#14b8a6', '#22c55e', '#eab308', '#f97316', '#ef4444', '#d946ef', '#64748b'];
const $ = (id) => document.getElementById(id);

/** Any CSS colour as #rrggbb (the colour input takes nothing else); null when it is none. */
function hex(colour) {
  const context = document.createElement('canvas').getContext('2d');
  context.fillStyle = '#010203';
  context.fillStyle = String(colour);
  const value = context.fillStyle;
  return value === '#010203' && String(colour).toLowerCase() !== '#010203' ? null : value;
}

let current = '#3366ff';
function show(colour, status = '') {
  const value = hex(colour);
  if (!value) return;
  current = value;
  $('swatch').style.background = value;
  $('value').textContent = value;
  $('input').value = value;
  $('status').textContent = status;
  for (const button of document.querySelectorAll('.preset')) {
    button.setAttribute('aria-pressed', String(button.dataset.colour === value));
  }
}

function applyHost(context) {
  if (!context) return;
  if (context.theme) document.documentElement.style.colorScheme = context.theme;
  for (const [name, value] of Object.entries(context.styles?.variables ?? {})) {
    if (typeof value === 'string') document.documentElement.style.setProperty(name, value);
  }
}

const app = new App({ name: 'gemipanel-demo-colour-picker', version: '1.0.0' });
app.ontoolinput = ({ arguments: args }) => show(args?.colour ?? current);
app.ontoolresult = (result) => show(result.structuredContent?.colour ?? current);
app.onhostcontextchanged = applyHost;

for (const colour of PRESETS) {
  const button = document.createElement('button');
  button.className = 'preset';
  button.dataset.colour = colour;
  button.style.background = colour;
  button.title = colour;
  button.setAttribute('aria-label', colour);
  button.addEventListener('click', () => changed(colour));
  $('presets').append(button);
}
$('input').addEventListener('input', (event) => changed(event.target.value));

function changed(colour) {
  show(colour);
  app.updateModelContext({ content: [{ type: 'text', text: `The colour picker shows ${current}.` }] })
    .catch(() => {});
}

$('save').addEventListener('click', async () => {
  $('status').textContent = 'Saving…';
  try {
    const result = await app.callServerTool({ name: 'set_colour', arguments: { colour: current } });
    $('status').textContent = result.isError ? 'Not saved.' : `Saved ${result.structuredContent?.colour ?? current}.`;
  } catch (error) {
    $('status').textContent = `Not saved: ${error?.message ?? error}`;
  }
});
$('tell').addEventListener('click', () => {
  app.sendMessage({ role: 'user', content: [{ type: 'text', text: `I picked ${current}. What goes well with it?` }] })
    .catch(() => {});
});

new ResizeObserver(() => {
  app.sendSizeChanged({ height: Math.ceil(document.documentElement.scrollHeight) }).catch(() => {});
}).observe(document.body);

await app.connect();
applyHost(app.getHostContext());
document.body.dataset.ready = 'true';

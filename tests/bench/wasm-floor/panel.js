// The reference panel (../js-panel/panel.js), which also compiles GemiPanel's side panel module
// (streamed, as GemiPanel's early.js and sidepanel.js do) before the status counts as shown.
const compiled = WebAssembly.compileStreaming(fetch('panel.wasm'));
const app = document.createElement('div');
app.className = 'app';
app.innerHTML = `
  <header class="topbar"><strong>GemiPanel</strong></header>
  <main class="transcript"></main>
  <form class="composer"><textarea data-testid="input" rows="2" placeholder="Message Gemini"></textarea>
    <button type="submit">Send</button></form>
  <footer class="statusbar" role="status" data-testid="worker-status" data-state="loading">
    <span class="dot loading"></span><span class="status-text">…</span></footer>`;
document.body.append(app);
const status = app.querySelector('footer');
const answer = chrome.runtime.sendMessage({ id: 1, request: { type: 'status' } });
Promise.all([answer, compiled]).then(([reply]) => {
  const s = reply.response;
  status.querySelector('.status-text').textContent =
    `v${s.extension_version} · worker up ${Math.round(s.uptime_ms / 1000)} s · ${s.configured_servers} MCP servers`;
  status.querySelector('.dot').className = 'dot ok';
  status.dataset.state = 'ok';
});

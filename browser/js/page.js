// The JavaScript half of browser/src/page.rs: the side panel's reach into the person's tabs
// (chrome.tabs, chrome.scripting), and the small functions Chrome runs inside a tab. Each
// export answers JSON text ({ok: true, ...} or {ok: false, error, url}) that core's types read;
// nothing here decides what to tell the person or the model.

const READABILITY = 'vendor/readability/Readability.js';

/** The tab a call is about: `tabId`, else the active tab of the panel's window. */
async function target(tabId) {
  if (tabId !== null && tabId !== undefined) return chrome.tabs.get(tabId);
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  // GemiPanel's own pages (its panel opened as a tab) are never the page beside the chat.
  if (!tab || tab.url?.startsWith(chrome.runtime.getURL(''))) throw new Error('No tab with id: active');
  return tab;
}

const failure = (error, tab) => JSON.stringify({ ok: false, error: String(error?.message ?? error), url: tab?.url ?? null });

/** Runs `func(...args)` in frame 0 of `tab` (the extension's own world); its JSON answer. */
async function inTab(tab, func, args, world = 'ISOLATED') {
  const [result] = await chrome.scripting.executeScript({ target: { tabId: tab.id }, func, args, world });
  // Chrome drops what a function threw: the functions below catch and answer themselves.
  if (typeof result?.result !== 'string') throw new Error('the page did not answer');
  return result.result;
}

/** The tab as the chip shows it; title and URL only where GemiPanel may see them. */
const tabInfo = (tab) => tab && ({
  id: tab.id, windowId: tab.windowId, active: !!tab.active, status: tab.status ?? null,
  url: tab.url || tab.pendingUrl || null, title: tab.title || null, favicon: tab.favIconUrl || null,
});

export async function activeTab() {
  try {
    return JSON.stringify({ ok: true, tab: tabInfo(await target(null)) });
  } catch (e) {
    return failure(e);
  }
}

export async function tabById(tabId) {
  try {
    const tab = await chrome.tabs.get(tabId);
    if (tab.url?.startsWith(chrome.runtime.getURL(''))) throw new Error(`No tab with id: ${tabId}`);
    return JSON.stringify({ ok: true, tab: tabInfo(tab) });
  } catch (e) {
    return failure(e);
  }
}

/**
 * Calls `onChange(tabId)` when a tab is switched to, navigates, changes title or closes, and
 * `onChange(-1)` when a window gets focus or a permission is granted.
 */
export function watchTabs(onChange) {
  chrome.tabs.onActivated.addListener((info) => onChange(info.tabId));
  chrome.tabs.onUpdated.addListener((tabId, change) => {
    if (change.status || change.title || change.url || change.favIconUrl) onChange(tabId);
  });
  chrome.tabs.onRemoved.addListener((tabId) => onChange(tabId));
  chrome.windows?.onFocusChanged?.addListener(() => onChange(-1));
  // `tabs` or a site just granted: the active tab may show what it hid.
  chrome.permissions.onAdded.addListener(() => onChange(-1));
}

/** Readable text of a tab: Mozilla Readability on a copy of the document, then its blocks. */
export async function readPage(tabId, maxChars) {
  let tab;
  try {
    tab = await target(tabId);
    const [has] = await chrome.scripting.executeScript({ target: { tabId: tab.id }, func: () => typeof Readability === 'function' });
    if (!has?.result) await chrome.scripting.executeScript({ target: { tabId: tab.id }, files: [READABILITY] });
    const answer = JSON.parse(await inTab(tab, readInTab, [maxChars]));
    return JSON.stringify({ ...answer, tab: tabInfo(tab) });
  } catch (e) {
    return failure(e, tab);
  }
}

export async function readSelection(tabId, maxChars) {
  let tab;
  try {
    tab = await target(tabId);
    return JSON.stringify({ ...JSON.parse(await inTab(tab, selectionInTab, [maxChars])), tab: tabInfo(tab) });
  } catch (e) {
    return failure(e, tab);
  }
}

/** The page's visible text (`innerText`), for finding in it. */
export async function pageText(tabId, maxChars) {
  let tab;
  try {
    tab = await target(tabId);
    return JSON.stringify({ ...JSON.parse(await inTab(tab, textInTab, [maxChars])), tab: tabInfo(tab) });
  } catch (e) {
    return failure(e, tab);
  }
}

export async function listTabs() {
  try {
    const tabs = await chrome.tabs.query({ lastFocusedWindow: true });
    return JSON.stringify({ ok: true, tabs: tabs.map(tabInfo) });
  } catch (e) {
    return failure(e);
  }
}

export async function openTab(url, active) {
  try {
    const current = await target(null).catch(() => null);
    const tab = await chrome.tabs.create({ url, active, ...(current ? { index: current.index + 1, windowId: current.windowId } : {}) });
    return JSON.stringify({ ok: true, tab: tabInfo(tab) });
  } catch (e) {
    return failure(e);
  }
}

export async function switchTab(tabId) {
  try {
    const tab = await chrome.tabs.update(tabId, { active: true });
    return JSON.stringify({ ok: true, tab: tabInfo(tab) });
  } catch (e) {
    return failure(e);
  }
}

/**
 * The visible part of the active tab of the panel's window as JPEG, drawn at most `maxSide`
 * pixels on its longer side and re-encoded at each of `qualities` until it fits `maxBytes`.
 */
export async function capture(maxSide, maxBytes, qualities) {
  let tab;
  try {
    tab = await target(null);
    const dataUrl = await chrome.tabs.captureVisibleTab(tab.windowId, { format: 'png' });
    const bitmap = await createImageBitmap(await (await fetch(dataUrl)).blob());
    const scale = Math.min(1, maxSide / Math.max(bitmap.width, bitmap.height, 1));
    const width = Math.max(1, Math.round(bitmap.width * scale));
    const height = Math.max(1, Math.round(bitmap.height * scale));
    const canvas = new OffscreenCanvas(width, height);
    canvas.getContext('2d').drawImage(bitmap, 0, 0, width, height);
    let blob = null;
    let quality = null;
    for (quality of qualities) {
      blob = await canvas.convertToBlob({ type: 'image/jpeg', quality });
      if (blob.size <= maxBytes) break;
    }
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return JSON.stringify({
      ok: true, mime: 'image/jpeg', data: btoa(binary), bytes: bytes.length, quality,
      width, height, capturedWidth: bitmap.width, capturedHeight: bitmap.height, tab: tabInfo(tab),
    });
  } catch (e) {
    return failure(e, tab);
  }
}

/** An image's bytes (base64) for a context part: at most `maxBytes`, no redirect followed. */
export async function fetchImage(url, maxBytes) {
  try {
    const response = await fetch(url, { credentials: 'omit', redirect: 'error' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const type = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (!type.startsWith('image/')) throw new Error(`not an image (${type || 'no type'})`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length > maxBytes) throw new Error(`larger than ${maxBytes} bytes`);
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return JSON.stringify({ ok: true, mime: type, data: btoa(binary) });
  } catch (e) {
    return failure(e);
  }
}

/** Whether GemiPanel holds `tabs` (titles and addresses of every tab). */
export async function hasTabsPermission() {
  try {
    return await chrome.permissions.contains({ permissions: ['tabs'] });
  } catch {
    return false;
  }
}

/** Asks for `tabs`; call it straight from a click (the request is made before any await). */
export function requestTabsPermission() {
  return chrome.permissions.request({ permissions: ['tabs'] });
}

// --- Run inside the tab (serialised by Chrome: each must be self-contained). ---

function readInTab(maxChars) {
  try {
    const BLOCKS = { P: 'p', H1: 'h1', H2: 'h2', H3: 'h3', H4: 'h4', H5: 'h5', H6: 'h6', LI: 'li', PRE: 'pre', BLOCKQUOTE: 'quote', TR: 'row', DT: 'p', DD: 'p', FIGCAPTION: 'p', CAPTION: 'p' };
    const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'CANVAS', 'IFRAME', 'OBJECT', 'EMBED', 'BUTTON', 'SELECT', 'INPUT', 'TEXTAREA', 'HEAD', 'MATH', 'VIDEO', 'AUDIO']);
    const BREAKS = new Set(['DIV', 'SECTION', 'ARTICLE', 'MAIN', 'HEADER', 'FOOTER', 'UL', 'OL', 'TABLE', 'TBODY', 'THEAD', 'FIGURE', 'DL', 'FORM', 'ASIDE', 'NAV', 'BR', 'HR', 'DETAILS', 'SUMMARY', 'ADDRESS', 'CENTER']);
    let article = null;
    if (typeof Readability === 'function') {
      try {
        article = new Readability(document.cloneNode(true), { serializer: (el) => el }).parse();
      } catch {
        article = null;
      }
    }
    const root = article?.content ?? document.body;
    const blocks = [];
    let block = { k: 'p', t: [] };
    let chars = 0;
    let cut = false;
    const flush = () => {
      if (block.t.length) blocks.push(block);
      block = { k: 'p', t: [] };
    };
    const add = (run, length) => {
      if (chars + length > maxChars) {
        cut = true;
        return;
      }
      chars += length;
      block.t.push(run);
    };
    const walk = (node) => {
      if (cut) return;
      if (node.nodeType === 3) {
        add(node.data, node.data.length);
        return;
      }
      if (node.nodeType !== 1) return;
      const tag = node.tagName.toUpperCase();
      if (SKIP.has(tag) || node.hidden || node.getAttribute('aria-hidden') === 'true') return;
      if (tag === 'A') {
        const text = node.textContent ?? '';
        if (text.trim()) add([text, node.href || ''], text.length);
        return;
      }
      if (tag === 'PRE') {
        flush();
        block.k = 'pre';
        const text = node.textContent ?? '';
        add(text, text.length);
        flush();
        return;
      }
      if (tag === 'IMG') return;
      if (tag === 'TD' || tag === 'TH') {
        if (block.t.length) add(' | ', 3);
        for (const child of node.childNodes) walk(child);
        return;
      }
      const kind = BLOCKS[tag];
      if (kind) {
        flush();
        block.k = kind;
        for (const child of node.childNodes) walk(child);
        flush();
        return;
      }
      if (BREAKS.has(tag)) flush();
      for (const child of node.childNodes) walk(child);
      if (BREAKS.has(tag)) flush();
    };
    if (root) walk(root);
    flush();
    const title = (article?.title || document.title || '').trim();
    return JSON.stringify({
      ok: true,
      contentType: document.contentType,
      read: {
        url: location.href, title, lang: article?.lang || document.documentElement.lang || null,
        byline: article?.byline || null, article: !!article, blocks, cut,
      },
    });
  } catch (e) {
    return JSON.stringify({ ok: false, error: String(e?.message ?? e) });
  }
}

function selectionInTab(maxChars) {
  try {
    let text = String(getSelection() ?? '');
    const field = document.activeElement;
    if (!text && field && typeof field.selectionStart === 'number' && field.type !== 'password') {
      text = String(field.value ?? '').slice(field.selectionStart, field.selectionEnd);
    }
    return JSON.stringify({ ok: true, url: location.href, title: document.title, text: text.slice(0, maxChars + 1) });
  } catch (e) {
    return JSON.stringify({ ok: false, error: String(e?.message ?? e) });
  }
}

function textInTab(maxChars) {
  try {
    const text = document.body?.innerText ?? '';
    return JSON.stringify({ ok: true, url: location.href, title: document.title, text: text.slice(0, maxChars), cut: text.length > maxChars });
  } catch (e) {
    return JSON.stringify({ ok: false, error: String(e?.message ?? e) });
  }
}

// --- WebMCP: a page's own tools (document.modelContext), called from a script in the tab,
// MAIN world: executeTool refuses callers from another top-level document (the panel). ---

/** The tools the page in `tabId` registered: `{modelContext: {supported, secure, origin, tools}}`. */
export async function pageTools(tabId) {
  let tab;
  try {
    tab = await target(tabId);
    const answer = JSON.parse(await inTab(tab, listToolsInTab, [], 'MAIN'));
    if (answer.modelContext?.secure) await hearToolChanges(tab);
    return JSON.stringify({ ...answer, tab: tabInfo(tab) });
  } catch (e) {
    return failure(e, tab);
  }
}

/** Calls the page's tool `name` with `argsJson`, if the tab still shows `origin`. */
export async function callPageTool(tabId, origin, name, argsJson) {
  let tab;
  try {
    tab = await chrome.tabs.get(tabId);
    return await inTab(tab, callToolInTab, [origin, name, argsJson], 'MAIN');
  } catch (e) {
    return failure(e, tab);
  }
}

/**
 * Has the page tell the panels when its tools change (`toolchange`), once per document: the
 * event is heard in the page's world, crosses to the extension's world as a DOM event, and is
 * sent from there. A page can fake the DOM event; all it gets is its tools listed again.
 */
async function hearToolChanges(tab) {
  await inTab(tab, () => {
    if (!window.__gemipanelToolchange) {
      window.__gemipanelToolchange = true;
      document.modelContext.addEventListener('toolchange', () => document.dispatchEvent(new CustomEvent('gemipanel-toolchange')));
    }
    return '{}';
  }, [], 'MAIN');
  await inTab(tab, () => {
    if (!window.__gemipanelToolchange) {
      window.__gemipanelToolchange = true;
      let queued = false;
      document.addEventListener('gemipanel-toolchange', () => {
        if (queued) return;
        queued = true;
        // A burst of registrations is one message.
        setTimeout(() => {
          queued = false;
          chrome.runtime.sendMessage({ type: 'page_toolchange' }).catch(() => {});
        }, 100);
      });
    }
    return '{}';
  }, [], 'ISOLATED');
}

/** Calls `onChange(tabId)` when the page in a tab whose tools were listed changes them. */
export function watchPageTools(onChange) {
  chrome.runtime.onMessage.addListener((message, sender) => {
    if (message?.type === 'page_toolchange' && sender.tab?.id !== undefined) onChange(sender.tab.id);
  });
}

async function listToolsInTab() {
  try {
    const context = document.modelContext;
    if (!context || typeof context.getTools !== 'function') return JSON.stringify({ ok: true, modelContext: { supported: false } });
    if (!window.isSecureContext) return JSON.stringify({ ok: true, modelContext: { supported: true, secure: false } });
    const tools = (await context.getTools()).map((t) => ({
      name: t.name, title: t.title ?? null, description: t.description ?? '',
      inputSchema: t.inputSchema ?? null, annotations: t.annotations ?? null,
    }));
    return JSON.stringify({ ok: true, modelContext: { supported: true, secure: true, origin: location.origin, tools } });
  } catch (e) {
    return JSON.stringify({ ok: false, error: String(e?.message ?? e) });
  }
}

async function callToolInTab(origin, name, argsJson) {
  try {
    if (location.origin !== origin) return JSON.stringify({ ok: false, error: `The page changed (now ${location.origin}): its tools are gone.` });
    const context = document.modelContext;
    const tool = (await context?.getTools?.() ?? []).find((t) => t.name === name);
    if (!tool) return JSON.stringify({ ok: false, error: `The page no longer offers the tool ${name}.` });
    let result;
    try {
      result = await context.executeTool(tool, JSON.parse(argsJson));
    } catch (e) {
      // Builds before the object form take the arguments as JSON text.
      if (!String(e?.message).startsWith('Failed to parse input')) throw e;
      result = await context.executeTool(tool, argsJson);
    }
    return JSON.stringify({ ok: true, result: result ?? null });
  } catch (e) {
    return JSON.stringify({ ok: false, error: String(e?.message ?? e) });
  }
}

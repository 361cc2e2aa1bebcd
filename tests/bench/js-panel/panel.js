// A side panel in plain JavaScript with GemiPanel's shell: a composer that takes typing and a
// status line showing the worker's answer, in the words GemiPanel uses.
const app = document.createElement('div');
app.className = 'app';
app.innerHTML = `
  <header class="topbar"><strong>GemiPanel</strong></header>
  <main class="transcript"></main>
  <form class="composer"><textarea data-testid="input" rows="2"
    placeholder="${chrome.i18n.getMessage('composerPlaceholder') || 'Message Gemini'}"></textarea>
    <button type="submit">Send</button></form>
  <footer class="statusbar" role="status" data-testid="worker-status" data-state="loading">
    <span class="dot loading"></span><span class="status-text">…</span></footer>`;
document.body.append(app);
const status = app.querySelector('footer');
// The floor (../wasm-floor) compiles a wasm module too; the reference has nothing to wait for.
const answer = chrome.runtime.sendMessage({ id: 1, request: { type: 'status' } });
Promise.all([answer, globalThis.benchBeforeReady]).then(([reply]) => {
  const s = reply.response;
  const seconds = Math.round(s.uptime_ms / 1000);
  status.querySelector('.status-text').textContent =
    `v${s.extension_version} · worker up ${seconds} s · ${s.configured_servers} MCP servers`;
  status.querySelector('.dot').className = 'dot ok';
  status.dataset.state = 'ok';
});

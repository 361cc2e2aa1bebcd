// Relay between the side panel (our parent) and the MCP App (our child frame). The side panel
// decides what the app may do; this page only builds the frame with the CSP it is given and
// passes messages, so a hostile app never reaches extension APIs.
(() => {
  let app = null;
  window.addEventListener('message', (event) => {
    const data = event.data;
    if (event.source === window.parent) {
      if (data && data.type === 'gemipanel/load-app' && typeof data.html === 'string') {
        app?.remove();
        app = document.createElement('iframe');
        app.setAttribute('sandbox', 'allow-scripts allow-forms');
        const csp = typeof data.csp === 'string' ? data.csp : "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";
        const meta = `<meta http-equiv="Content-Security-Policy" content="${csp.replace(/"/g, '&quot;')}">`;
        app.srcdoc = meta + data.html;
        document.body.appendChild(app);
        window.parent.postMessage({ type: 'gemipanel/app-loaded' }, '*');
      } else if (app?.contentWindow) {
        app.contentWindow.postMessage(data, '*');
      }
    } else if (app && event.source === app.contentWindow) {
      window.parent.postMessage(data, '*');
    }
  });
  window.parent.postMessage({ type: 'gemipanel/sandbox-ready' }, '*');
})();

// The MCP App relay: a manifest sandbox page (opaque origin, no extension APIs) between the side
// panel and one app, which runs in an inner frame of its own (sandbox="allow-scripts", its
// document made by the panel with the app's CSP before any of its markup).
//
// Control travels only on the MessagePort the panel hands over in its first message: an app
// can post to this window, and to the panel's, but never to that port, so nothing it sends can
// pass for a control message. What the app posts is relayed as data, from its own frame only.
(() => {
  let port = null;
  let frame = null;

  window.addEventListener('message', (event) => {
    if (!port) {
      // The panel's hand-over: from our parent, once, with exactly one port.
      if (event.source === window.parent && event.ports.length === 1 && event.data === 'gemipanel/connect') {
        port = event.ports[0];
        port.onmessage = (e) => control(e.data);
      }
      return;
    }
    if (frame && event.source === frame.contentWindow) {
      port.postMessage({ type: 'app', message: event.data });
    }
  });

  function control(data) {
    if (!data || typeof data !== 'object') return;
    if (data.type === 'load' && typeof data.document === 'string') {
      load(data.document, typeof data.allow === 'string' ? data.allow : '');
    } else if (data.type === 'post' && frame?.contentWindow) {
      frame.contentWindow.postMessage(data.message, '*');
    } else if (data.type === 'unload') {
      frame?.remove();
      frame = null;
    }
  }

  function load(html, allow) {
    frame?.remove();
    frame = document.createElement('iframe');
    // Scripts only: no forms, popups, top navigation, downloads or same-origin access.
    frame.setAttribute('sandbox', 'allow-scripts');
    if (allow) frame.setAttribute('allow', allow);
    frame.title = 'MCP App';
    frame.addEventListener('load', () => port.postMessage({ type: 'loaded' }));
    frame.srcdoc = html;
    document.body.appendChild(frame);
  }
})();

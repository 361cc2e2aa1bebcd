// The MCP App relay: a manifest sandbox page (opaque origin, no extension APIs) between the side
// panel and one app, which runs in an inner frame of its own (sandbox="allow-scripts", its
// document made by the panel with the app's CSP before any of its markup).
//
// Control travels only on the MessagePort the panel hands over in its first message: an app
// can post to this window, and to the panel's, but never to that port, so nothing it sends can
// pass for a control message. What the app posts is relayed as data, from its own frame only.
//
// The inner frame is made as the page starts, holding only a loader that writes the app's
// document into itself once this page posts it. The app then starts in a frame already made
// and navigated, and the panel keeps a spare page loaded, so that is usually done before the
// app's document arrives. The document travels as UTF-8 bytes, transferred, not copied, from
// the panel to the app's frame: a 400 KB string took 13 ms to clone into it.
(() => {
  const LOADER = `<!doctype html><script>(() => {
    const take = (event) => {
      if (event.source !== parent || event.data?.type !== 'gemipanel/document' || !(event.data.document instanceof ArrayBuffer)) return;
      removeEventListener('message', take);
      const html = new TextDecoder().decode(event.data.document);
      // Opening the document also drops every listener, this one's included.
      document.open();
      document.write(html);
      document.close();
    };
    addEventListener('message', take);
  })();</script>`;

  let port = null;
  let frame = null;
  // One app per page: the panel makes a page for each app it shows (reload included).
  let used = false;
  let loads = 0;
  let idleAsked = false;
  // The loader frame made as the page starts, until the app is written into it.
  let warm = makeLoader('');

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
      // Whether the person just clicked or typed in the app: activation reaches a frame's
      // ancestors (this page), never from the panel down, and the app cannot set it here.
      // https://html.spec.whatwg.org/multipage/interaction.html#activation-notification
      const activated = navigator.userActivation?.isActive === true;
      port.postMessage({ type: 'app', message: event.data, activated });
    }
  });

  function control(data) {
    if (!data || typeof data !== 'object') return;
    if (data.type === 'load' && data.document instanceof ArrayBuffer) {
      load(data.document, typeof data.allow === 'string' ? data.allow : '');
    } else if (data.type === 'post' && frame?.contentWindow) {
      frame.contentWindow.postMessage(data.message, '*');
    } else if (data.type === 'ping') {
      port.postMessage({ type: 'pong' });
    } else if (data.type === 'unload') {
      frame?.remove();
      frame = null;
    }
  }

  function load(bytes, allow) {
    if (used) return;
    used = true;
    // A frame's `allow` list counts only from its next load, so an app that asks for browser
    // features gets a loader frame made with it (before the lock below, as the first one).
    if (allow) {
      warm.remove();
      warm = makeLoader(allow);
    }
    const target = warm;
    frame = target;
    warm = null;
    const write = () => {
      if (frame !== target) return; // unloaded meanwhile
      lockNavigation();
      target.addEventListener('load', loaded);
      target.contentWindow.postMessage({ type: 'gemipanel/document', document: bytes }, '*', [bytes]);
    };
    if ('ready' in target.dataset) write();
    else target.addEventListener('load', write, { once: true });
  }

  // A frame may always navigate itself, sandboxed or not, and the URL alone would carry data
  // out; whether it may load is for this page's policy to say, not the app's. So once the
  // app's frame holds its loader (whose policy was copied from this page's as it loaded, and
  // stays the app's), this page forbids any frame to load in it.
  function lockNavigation() {
    if (document.querySelector('meta[data-lock]')) return;
    const meta = document.createElement('meta');
    meta.httpEquiv = 'Content-Security-Policy';
    meta.content = "frame-src 'none'";
    meta.dataset.lock = '';
    document.head.append(meta);
  }

  function loaded(event) {
    if (event.target !== frame) return;
    // The written document loads once; a second load is a page the app tried to go to (refused
    // by the lock above, so the frame holds the browser's error page): the app is over.
    if (++loads > 1) {
      frame.remove();
      frame = null;
      port.postMessage({ type: 'left' });
      return;
    }
    port.postMessage({ type: 'loaded' });
    // Every sandbox page's frames share one process: the panel makes its next spare page when
    // that process has nothing to do, not while this app starts.
    if (!idleAsked) {
      idleAsked = true;
      requestIdleCallback(() => port.postMessage({ type: 'idle' }), { timeout: 2000 });
    }
  }

  function makeLoader(allow) {
    const made = document.createElement('iframe');
    // Scripts only: no forms, popups, top navigation, downloads or same-origin access.
    made.setAttribute('sandbox', 'allow-scripts');
    if (allow) made.setAttribute('allow', allow);
    made.title = 'MCP App';
    made.addEventListener('load', () => { made.dataset.ready = ''; }, { once: true });
    made.srcdoc = LOADER;
    document.body.appendChild(made);
    return made;
  }
})();

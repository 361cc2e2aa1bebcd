// The side panel's end of an MCP App's sandbox frame; static/sandbox.js is the other end.
// One MessageChannel per frame carries every control message, so an app (which can post to
// any window) can never write one.

// The control messages are core::apps::frame_wire's types (ToSandbox, FromSandbox); their
// names here are checked against core by xtask's tidy tests.

/**
 * Hands the sandbox page in `iframe` its port; `onEvent(message)` is called with each of its
 * messages (a FromSandbox) but `idle` and `pong`, which this module answers itself, and
 * `onHung(suspect)` when the sandbox process stops answering (see the watchdog below). Returns
 * the port to pass to the functions below.
 */
export function connectSandbox(iframe, onEvent, onHung) {
  const channel = new MessageChannel();
  const live = { port: channel.port1, iframe, onHung, pingedAt: null, since: Date.now() };
  channel.port1.onmessage = (event) => {
    if (event.data?.type === 'idle') keepSpareSandbox();
    else if (event.data?.type === 'pong') live.pingedAt = null;
    else onEvent(event.data);
  };
  iframe.contentWindow.postMessage('gemipanel/connect', '*', [channel.port2]);
  watch(live);
  return channel.port1;
}

// The watchdog. Every sandbox page, and every app in one, runs on the one thread of one
// process (Chrome 156 puts all the extension's sandboxed frames in a process of their own, but
// only one), so an app in an endless loop stops every app. Each connected page is pinged; one
// silent for HUNG_AFTER_MS means that thread is stuck. Chrome ends a renderer process once no
// frame is left in it, and a frame made after that gets a new one: every sandbox frame is
// removed at once, then each app is told (`onHung`) whether it is the suspect, which stays
// stopped, or one to start again from what was saved.
const PING_EVERY_MS = 1000;
const HUNG_AFTER_MS = 5000;
const watched = new Set();
let ticking = null;
// The sandbox frame the person last clicked or typed in: focus moving into a frame is the one
// thing the panel sees of it while that frame's thread is stuck.
let lastFocused = null;

function watch(live) {
  watched.add(live);
  if (!ticking) {
    ticking = setInterval(tick, PING_EVERY_MS);
    addEventListener('blur', noteFocus);
  }
}

function unwatch(port) {
  for (const live of watched) if (live.port === port) watched.delete(live);
  if (!watched.size && ticking) {
    clearInterval(ticking);
    ticking = null;
    removeEventListener('blur', noteFocus);
  }
}

function noteFocus() {
  // The panel's focus went into a frame of its own (blur fires before activeElement is set).
  setTimeout(() => {
    const active = document.activeElement;
    for (const live of watched) if (live.iframe === active) lastFocused = live;
  }, 0);
}

function tick() {
  const now = Date.now();
  let hung = false;
  for (const live of watched) {
    if (live.pingedAt === null) {
      live.pingedAt = now;
      live.port.postMessage({ type: 'ping' });
    } else if (now - live.pingedAt >= HUNG_AFTER_MS) {
      hung = true;
    }
  }
  if (hung) recover();
}

function recover() {
  const all = [...watched];
  // The app the person last used, or else the one that started last (a loop as it starts).
  const suspect = all.includes(lastFocused)
    ? lastFocused
    : all.reduce((a, b) => (b.since > a.since ? b : a));
  for (const live of all) {
    unwatch(live.port);
    live.port.close();
    live.iframe.remove();
  }
  spare?.remove();
  spare = null;
  departing?.remove();
  departing = null;
  // An app that started meanwhile waits for its sandbox page, stuck in that process: its frame
  // goes too, and comes back (loading anew) once every frame has gone.
  const starting = [];
  for (const frame of document.querySelectorAll('iframe[src="sandbox.html"]')) {
    starting.push([frame, frame.parentNode, frame.nextSibling]);
    frame.remove();
  }
  lastFocused = null;
  for (const live of all) live.onHung(live === suspect);
  for (const [frame, parent, next] of starting) parent?.insertBefore(frame, next?.parentNode === parent ? next : null);
}

// One sandbox page kept loaded and hidden for the next app. Chrome runs sandboxed frames in a
// process of their own: while one lives, the next app's frames start in it instead of waiting
// for a new process. And an app given this page (moved, not reloaded) does not wait for it to
// load (about 30 ms before the app's document could be handed over, tests/bench/app_load.mjs).
let spare = null;

/** Keeps a spare sandbox page loading in the panel, unless one is there. */
export function keepSpareSandbox() {
  if (spare?.isConnected) return;
  const frame = document.createElement('iframe');
  frame.src = 'sandbox.html';
  frame.dataset.warmSandbox = '';
  frame.setAttribute('aria-hidden', 'true');
  frame.tabIndex = -1;
  frame.style.cssText = 'position:absolute;width:0;height:0;border:0;visibility:hidden';
  // Only a loaded page can be handed over; a page that loads again is not ours to mark.
  frame.addEventListener('load', () => { frame.dataset.loaded = ''; }, { once: true });
  spare = frame;
  document.body.append(frame);
}

/**
 * Moves the loaded spare sandbox page into `container` for an app (the next spare is made
 * when the apps' process goes idle: see connectSandbox).
 * Null when none is loaded yet, or the browser would reload a moved frame (`moveBefore`,
 * Chrome 133): then the caller loads a frame of its own.
 */
export function adoptSpareSandbox(container) {
  if (!spare?.hasAttribute('data-loaded') || typeof container.moveBefore !== 'function') return null;
  const frame = spare;
  try {
    container.moveBefore(frame, null);
  } catch {
    return null; // container not in the document
  }
  spare = null;
  delete frame.dataset.warmSandbox;
  delete frame.dataset.loaded;
  frame.removeAttribute('aria-hidden');
  frame.removeAttribute('tabindex');
  frame.style.cssText = '';
  // The next spare is made once this app's process goes idle (the sandbox page says so): made
  // now, its page and frame would take that process's thread from the app while it starts.
  return frame;
}

/**
 * Posts `load` (a ToSandbox `load`) with the app's document (UTF-8 `bytes`, a view into wasm
 * memory) beside it as `document`.
 */
export function loadApp(port, load, ...parts) {
  // The document's parts (views of wasm memory) joined into a buffer the port can transfer,
  // not clone: it reaches the app's frame without another copy.
  const bytes = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  port.postMessage({ ...load, document: bytes.buffer }, [bytes.buffer]);
}

/** Posts a ToSandbox message. */
export function postControl(port, message) {
  port.postMessage(message);
}

/** Posts `unload` (a ToSandbox `unload`) and closes the port. */
export function unloadApp(port, unload) {
  unwatch(port);
  port.postMessage(unload);
  port.close();
}

// Frames whose apps are cleaning up: out of the layout, still running.
let departing = null;

/**
 * Posts `post` (a ToSandbox `post` of the app's `ui/resource-teardown` request) and removes the
 * frame once the app answers it, or after `graceMs` (posting `unload` first). The frame is
 * moved (not reloaded: `moveBefore`) out of the place it leaves; where it cannot be, it goes at
 * once.
 */
export function departApp(port, iframe, post, unload, graceMs) {
  unwatch(port);
  const message = post.message;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    unloadApp(port, unload);
    iframe.remove();
  };
  if (!departing?.isConnected) {
    departing = document.createElement('div');
    departing.dataset.testid = 'app-departing';
    departing.hidden = true;
    document.body.append(departing);
  }
  try {
    departing.moveBefore(iframe, null);
  } catch {
    return finish();
  }
  port.onmessage = (event) => {
    if (event.data?.type === 'idle') keepSpareSandbox();
    const answer = event.data?.type === 'app' ? event.data.message : null;
    if (answer && answer.id === message?.id && ('result' in answer || 'error' in answer)) finish();
  };
  port.postMessage(post);
  setTimeout(finish, graceMs);
}

// The spec's style variables, from the side panel's own (static/app.css).
const VARIABLES = {
  '--color-background-primary': '--bg',
  '--color-background-secondary': '--bg-raised',
  '--color-text-primary': '--fg',
  '--color-text-secondary': '--fg-muted',
  '--color-border-primary': '--border',
  '--color-ring-primary': '--accent',
  '--color-text-info': '--accent',
  '--color-text-danger': '--error',
  '--color-text-success': '--ok',
  '--color-text-warning': '--warn',
};

/** What an app's host context describes of this page, read from the browser. */
export function hostEnvironment(element) {
  const style = getComputedStyle(document.documentElement);
  const variables = {};
  for (const [spec, ours] of Object.entries(VARIABLES)) {
    const value = style.getPropertyValue(ours).trim();
    if (value) variables[spec] = value;
  }
  variables['--font-sans'] = style.fontFamily;
  return {
    dark: matchMedia('(prefers-color-scheme: dark)').matches,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC',
    touch: matchMedia('(pointer: coarse)').matches,
    hover: matchMedia('(hover: hover)').matches,
    width: Math.round(element?.clientWidth ?? document.documentElement.clientWidth),
    height: Math.round(window.innerHeight),
    variables,
  };
}

/** Calls `onChange()` when the colour scheme changes; returns a function that stops it. */
export function watchColorScheme(onChange) {
  const query = matchMedia('(prefers-color-scheme: dark)');
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/**
 * Calls `onChange(near)` when `element` comes within `marginPx` of the visible part of the page
 * or goes farther (and once at the start); returns a function that stops it.
 */
export function watchNearness(element, marginPx, onChange) {
  // The margin must apply to the box that scrolls (the transcript's): with the page's viewport as
  // root, an element its scroll container clips counts as far away, however close it is.
  const observer = new IntersectionObserver(
    (entries) => onChange(entries[entries.length - 1].isIntersecting),
    { root: scrollingAncestor(element), rootMargin: `${marginPx}px 0px` },
  );
  observer.observe(element);
  return () => observer.disconnect();
}

function scrollingAncestor(element) {
  for (let node = element.parentElement; node; node = node.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(node).overflowY)) return node;
  }
  return null;
}

// The side panel's way to the worker, for benchmarks: a runtime port named `<name>#<token>` and
// the fast lane (browser/src/channel.rs) the worker pairs with it; requests and replies travel
// on the lane as JSON text. Run in an extension page with `page.evaluate(installLane)`; it
// defines `globalThis.laneRequest(body)`, resolving to the worker's response.
export async function installLane() {
  const token = Math.random().toString(16).slice(2);
  const port = chrome.runtime.connect({ name: `bench#${token}` });
  const lane = new MessageChannel();
  const waiting = new Map();
  const onReply = (m) => {
    if (m?.kind !== 'response') return;
    waiting.get(m.id)?.(m.response);
    waiting.delete(m.id);
  };
  port.onMessage.addListener(onReply);
  const paired = new Promise((resolve) => {
    lane.port1.onmessage = (e) => (e.data?.kind === 'channel_ready' ? resolve() : onReply(JSON.parse(e.data)));
  });
  (await navigator.serviceWorker.ready).active.postMessage({ gemipanel_channel: token }, [lane.port2]);
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('the worker did not pair the fast lane')), 5000));
  await Promise.race([paired, timeout]);
  let id = 1_000_000;
  globalThis.laneRequest = (body) => new Promise((resolve) => {
    const mine = id++;
    waiting.set(mine, resolve);
    lane.port1.postMessage(JSON.stringify({ id: mine, request: body }));
  });
}

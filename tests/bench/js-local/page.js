// The page's side of the reference: a MessageChannel to the worker, requests by id.
const lane = new MessageChannel();
const waiting = new Map();
let nextId = 1;
lane.port1.onmessage = ({ data }) => {
  waiting.get(data.id)?.(data);
  waiting.delete(data.id);
};
const ready = navigator.serviceWorker.ready.then((r) => r.active.postMessage({}, [lane.port2]));

globalThis.floorRequest = async (body) => {
  await ready;
  const id = nextId++;
  const reply = await new Promise((resolve) => {
    waiting.set(id, resolve);
    lane.port1.postMessage({ id, ...body });
  });
  if (reply.error) throw new Error(reply.error);
  return reply.result;
};

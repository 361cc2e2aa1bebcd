// A reference worker (the bench copies in ../js-panel's or ../js-worker's background.js), which
// first compiles GemiPanel's worker module as GemiPanel's worker does (streamed from a copy in
// Cache Storage). Compiling is the least a wasm worker does before it answers; running it
// (instantiating, the functions it calls compiled lazily, storage and serde) is GemiPanel's own
// cost above this floor.
// (A service worker may not import() later; the reference reads the promise per message.)
import './background.js';
import { compileKept } from './floor-kept.js';

globalThis.benchBeforeReady = compileKept('worker.wasm');

// The reference panel (../js-panel/panel.js), which also compiles GemiPanel's side panel module
// before the status counts as shown: streamed from a copy in Cache Storage (the extension's file
// the first time), as GemiPanel's early.js does, and started as soon as the page runs a script.
import { compileKept } from './floor-kept.js';

globalThis.benchBeforeReady = compileKept('panel.wasm');
await import('./panel.js');

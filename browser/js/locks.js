// The JavaScript half of browser/src/locks.rs: the Web Locks API, shared by every page of the
// extension's origin (two side panels in two windows take turns).

/** Resolves, once `name` is ours, to a function that releases it. */
export function acquireLock(name) {
  return new Promise((granted, failed) => {
    navigator.locks
      .request(name, () => new Promise((release) => granted(release)))
      .catch(failed);
  });
}

/**
 * Hooks that may return a promise: the Presenter's parts stay synchronous unless a hook went async.
 * @internal
 * @module
 */

/** What a step returns: a promise only when a hook went async, so sync hooks cost no promise. @internal */
export type Maybe = Promise<void> | undefined

/** Is `v` a promise-like (an object or function with a `then` method)? @internal */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function'
}

/** A hook's return value as a {@link Maybe}. @internal */
export function settled(r: unknown): Maybe {
  // no `.then` added: the caller awaits the hook's own promise, with no extra tick
  return isThenable(r) ? Promise.resolve(r) as Promise<void> : undefined
}

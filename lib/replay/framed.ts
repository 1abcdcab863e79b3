/**
 * One stream cut into the groups its markers frame (a replay's turns), each group a stream of its
 * own read from the shared source: nothing is buffered, so a group must be read (or abandoned)
 * before the next is asked for, and what an abandoned group still held is passed over.
 * @internal
 * @module
 */

/** What a record is to the framing: it opens a group, closes it, belongs to it, or is passed over. */
export type FrameRole = 'open' | 'close' | 'item' | 'skip'

/**
 * The groups of `source`: each `open` record with the `item` records after it, up to the next
 * `close` or `open` (or the end). Records outside a group are passed over. @internal
 * @group Replay
 */
export async function* framedGroups<T, O extends T, I extends T>(
  source: AsyncIterable<T> | Iterable<T>,
  role: (record: T) => FrameRole,
): AsyncGenerator<{ open: O; items: AsyncGenerator<I, void, undefined> }, void, undefined> {
  const it = (Symbol.asyncIterator in source
    ? (source as AsyncIterable<T>)[Symbol.asyncIterator]()
    : (source as Iterable<T>)[Symbol.iterator]()) as AsyncIterator<T> | Iterator<T>
  let inGroup = false
  let pending: T | undefined // an opening record read by the previous group's items
  const next = async (): Promise<T | undefined> => {
    if (pending !== undefined) {
      const r = pending
      pending = undefined
      return r
    }
    const r = await it.next()
    return r.done === true ? undefined : r.value
  }
  try {
    for (;;) {
      let r = await next()
      // what is left of a group its reader abandoned
      while (inGroup && r !== undefined && role(r) !== 'open' && role(r) !== 'close') r = await next()
      inGroup = false
      if (r === undefined) return
      if (role(r) !== 'open') continue
      inGroup = true
      const items = async function* (): AsyncGenerator<I, void, undefined> {
        while (inGroup) {
          let x = await next()
          while (x !== undefined && role(x) === 'skip') x = await next()
          if (x === undefined || role(x) !== 'item') {
            if (x !== undefined && role(x) === 'open') pending = x
            inGroup = false
            return
          }
          yield x as I
        }
      }
      yield { open: r as O, items: items() }
    }
  } finally {
    await it.return?.()
  }
}

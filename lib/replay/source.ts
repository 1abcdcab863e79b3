/**
 * Input plumbing shared by the readers: byte or string sources, decoding, peeking.
 * @internal
 * @module
 */

import type { LogSource } from './events.js'

/** Decodes a byte source as UTF-8 (a character split across chunks decodes whole). @internal */
export async function* decodeText(source: LogSource): AsyncGenerator<string, void, undefined> {
  const decoder = new TextDecoder('utf-8')
  for await (const chunk of source) {
    const s = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
    if (s.length > 0) yield s
  }
  const rest = decoder.decode()
  if (rest.length > 0) yield rest
}

/** How far {@link peek} reads past `bytes` while it has seen only white space. */
const BLANK_LIMIT = 65536

/**
 * Reads the first `bytes` of a source (or all of it, if shorter), and on while all it has seen
 * is white space (up to 64 KiB), without losing them: returns the head as text (`whole` when it
 * is all there is, so a blank `whole` head is an empty input) and a source that yields the whole
 * input again, head included, or `close` to release the source when it will not be read.
 * @internal
 */
export async function peek(source: LogSource, bytes = 4096): Promise<{ head: string; whole: boolean; source: AsyncIterable<string | Uint8Array>; close: () => Promise<void> }> {
  const it = (Symbol.asyncIterator in source
    ? (source as AsyncIterable<string | Uint8Array>)[Symbol.asyncIterator]()
    : (source as Iterable<string | Uint8Array>)[Symbol.iterator]()) as AsyncIterator<string | Uint8Array> | Iterator<string | Uint8Array>
  const seen: (string | Uint8Array)[] = []
  const decoder = new TextDecoder('utf-8')
  let head = ''
  let blank = true
  let size = 0
  let done = false
  while (size < bytes || (blank && size < BLANK_LIMIT)) {
    const r = await it.next()
    if (r.done === true) {
      done = true
      break
    }
    seen.push(r.value)
    size += typeof r.value === 'string' ? r.value.length : r.value.byteLength
    const text = typeof r.value === 'string' ? r.value : decoder.decode(r.value, { stream: true })
    head += text
    if (blank) blank = /^[\s\uFEFF]*$/u.test(text)
  }
  async function* again(): AsyncGenerator<string | Uint8Array, void, undefined> {
    try {
      yield* seen
      seen.length = 0
      if (done) return
      for (;;) {
        const r = await it.next()
        if (r.done === true) return
        yield r.value
      }
    } finally {
      // an early stop of the consumer must reach the underlying source (a file stream's fd)
      await it.return?.()
    }
  }
  const close = async (): Promise<void> => {
    await it.return?.()
  }
  return { head, whole: done, source: again(), close }
}

/** One item at a time from batches. @internal */
export async function* flatten<T>(batches: AsyncIterable<readonly T[]>): AsyncGenerator<T, void, undefined> {
  for await (const b of batches) yield* b
}

/**
 * Maps each batch through `each`, which appends the events of one item to `out`. If `each`
 * throws (a malformed item in `fail` mode), what the batch gave before it is yielded first, so
 * the output stops exactly at the bad item whatever the batching.
 * @internal
 */
export async function* mapBatches<I, O>(batches: AsyncIterable<readonly I[]>, each: (item: I, out: O[]) => void): AsyncGenerator<O[], void, undefined> {
  for await (const items of batches) {
    const out: O[] = []
    try {
      for (const item of items) each(item, out)
    } catch (err) {
      if (out.length > 0) yield out
      throw err
    }
    if (out.length > 0) yield out
  }
}

/**
 * The BlockParser without Node streams: async iterables and WHATWG streams.
 * @module
 */
import type { Block, DiffRecord } from '../types.js'
import { DiffSession, type StreamParseOptions } from './session.js'

/**
 * Parses an (async) iterable of text chunks, yielding the same records a {@link BlockParser}
 * would emit (diffs, or snapshots with `emit: 'snapshots'`). Errors are thrown from the iteration.
 * @example
 * ```ts
 * import { parseStream } from 'tagstream'
 * for await (const diff of parseStream(['Hello <read_file><path>a', '</path></read_file>'])) {
 *   console.log(diff)
 * }
 * ```
 */
export async function* parseStream(
  source: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  options: StreamParseOptions = {},
): AsyncGenerator<DiffRecord | Block[], void, undefined> {
  let batch: (DiffRecord | Block[])[] = []
  const session = new DiffSession(options, { record: (r) => batch.push(r), diagnostic: () => undefined })
  const take = (): (DiffRecord | Block[])[] => {
    const out = batch
    batch = []
    return out
  }
  for await (const chunk of source) {
    session.push(chunk)
    yield* take()
  }
  session.end()
  yield* take()
}

/**
 * A WHATWG `TransformStream` doing the BlockParser's job, for runtimes built on web streams.
 * @example
 * ```ts
 * import { createWebBlockParser } from 'tagstream'
 * const res = await fetch(url)
 * const diffs = res.body!.pipeThrough(createWebBlockParser())
 * for await (const d of diffs) console.log(d)
 * ```
 */
export function createWebBlockParser(options: StreamParseOptions = {}): TransformStream<string | Uint8Array, DiffRecord | Block[]> {
  let controller: TransformStreamDefaultController<DiffRecord | Block[]>
  const session = new DiffSession(options, { record: (r) => controller.enqueue(r), diagnostic: () => undefined })
  return new TransformStream({
    start(c) {
      controller = c
    },
    transform(chunk) {
      session.push(chunk)
    },
    flush() {
      session.end()
    },
  })
}

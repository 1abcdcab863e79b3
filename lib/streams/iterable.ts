/**
 * The BlockParser without Node streams: async iterables and WHATWG streams.
 * @module
 */
import type { Block, DiffRecord } from '../types.js'
import type { Emitted } from './records.js'
import { DiffSession, type StreamParseOptions } from './session.js'

/**
 * Parses an (async) iterable of text chunks, yielding the same records a {@link BlockParser}
 * would emit (diffs, or snapshots with `emit: 'snapshots'`; the yielded type follows the option,
 * see {@link Emitted}). Errors are thrown from the iteration.
 * @example
 * ```ts
 * import { parseStream } from 'tagstream'
 * for await (const diff of parseStream(['Hello <read_file><path>a', '</path></read_file>'])) {
 *   console.log(diff)
 * }
 * ```
 * @group Streams
 */
export function parseStream<O extends StreamParseOptions = {}>(
  source: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  options?: O,
): AsyncGenerator<Emitted<O>, void, undefined> {
  return records(source, options ?? {}) as AsyncGenerator<Emitted<O>, void, undefined>
}

async function* records(
  source: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  options: StreamParseOptions,
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
 * A WHATWG `TransformStream` doing the BlockParser's job, for runtimes built on web streams. Its
 * readable side carries the records the `emit` option asks for (see {@link Emitted}).
 * @example
 * ```ts
 * import { createWebBlockParser } from 'tagstream'
 * const res = await fetch(url)
 * const diffs = res.body!.pipeThrough(createWebBlockParser())
 * for await (const d of diffs) console.log(d)
 * ```
 * @group Streams
 */
export function createWebBlockParser<O extends StreamParseOptions = {}>(options?: O): TransformStream<string | Uint8Array, Emitted<O>> {
  let controller: TransformStreamDefaultController<Emitted<O>>
  const session = new DiffSession(options ?? {}, { record: (r) => controller.enqueue(r as Emitted<O>), diagnostic: () => undefined })
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

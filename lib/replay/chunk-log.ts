/**
 * Chunk logs (SPEC 8): JSONL, one `{"t": ms, "text": "…"}` per line, optionally
 * `{"meta": {…}}` first. Read line by line with stream-json's JSONL parser, so memory holds one
 * line, never the file.
 * @module
 */
import { Readable, Transform, pipeline } from 'node:stream'
import jsonl from 'stream-json/jsonl/parser.js'
import { Reporter, describe, isObject, type LogReadOptions, type LogSource, type ReplayEvent } from './events.js'
import { flatten, mapBatches, readBatches } from './source.js'

/** A line JSON.parse rejected; stands in for it so line numbers stay exact. */
class BadLine {
  constructor(readonly error: Error, readonly input: string) {}
}

/** JSON.parse's message for the line as it was in the file (without the space put before its newline). */
function parseError(bad: BadLine): string {
  try {
    JSON.parse(bad.input.endsWith(' ') ? bad.input.slice(0, -1) : bad.input)
  } catch (err) {
    return (err as Error).message
  }
  return bad.error.message
}

/**
 * stream-json's line splitter drops empty lines without a trace, which would shift every later
 * line number. Putting a space before each newline costs one native replace per chunk, keeps
 * every value intact (JSON allows trailing white space) and turns an empty line into a blank
 * one, which fails to parse and so is counted through `errorIndicator`.
 */
function markEmptyLines(): Transform {
  const decoder = new TextDecoder('utf-8')
  return new Transform({
    readableObjectMode: true,
    readableHighWaterMark: 1,
    writableHighWaterMark: 1, // strings, handed on as they are (no second UTF-8 round trip)
    decodeStrings: false,
    transform(chunk: string | Buffer, _enc, cb) {
      const s = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
      cb(null, s.length > 0 ? s.replaceAll('\n', ' \n') : undefined)
    },
    flush(cb) {
      const rest = decoder.decode()
      cb(null, rest.length > 0 ? rest : undefined)
    },
  })
}

/**
 * Reads a chunk log, yielding one turn per message: a log without `meta` lines is one turn;
 * each `meta` line starts a new turn (so `cat a.jsonl b.jsonl` replays as two). Besides
 * `{t, text}`, a line may be `{t, reasoning}` for a provider's reasoning stream. Empty or blank
 * lines are ignored; unknown extra keys too (room for later versions).
 *
 * A line that is not JSON, or not one of those shapes, fails the read with an `ERR_BAD_LOG`
 * error naming the file and line (or is skipped with a warning, `onError: 'skip'`).
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs'
 * import { readChunkLog } from 'tagstream'
 * for await (const e of readChunkLog(createReadStream('log.jsonl'), { file: 'log.jsonl' })) console.log(e)
 * ```
 */
export function readChunkLog(source: LogSource, options: LogReadOptions = {}): AsyncGenerator<ReplayEvent, void, undefined> {
  return flatten(chunkLogBatches(source, options))
}

/** {@link readChunkLog} in batches, one per block of input lines. @internal */
export async function* chunkLogBatches(source: LogSource, options: LogReadOptions = {}): AsyncGenerator<ReplayEvent[], void, undefined> {
  const report = new Reporter(options)
  const parser = jsonl.asStream({
    writableObjectMode: true,
    writableHighWaterMark: 1,
    readableHighWaterMark: 1024, // lines parsed ahead, taken in one batch
    errorIndicator: (error: Error, input: string) => new BadLine(error, input),
  })
  // Little buffering between the stages: input chunks then die young, in the new space, instead
  // of being promoted and piling up until a full collection (a 200 MB replay then needs ~100 MB
  // of heap instead of ~250).
  const lines = pipeline(Readable.from(source, { objectMode: true, highWaterMark: 1 }), markEmptyLines(), parser, () => {})
  let turn = 0
  let open: string | null = null
  yield* mapBatches(readBatches<{ key: number; value: unknown }>(lines), (item, out: ReplayEvent[]) => {
    const line = item.key + 1
    const v = item.value
    if (v instanceof BadLine) {
      if (v.input.trim() !== '') report.bad(`line ${line}`, `not JSON (${parseError(v)})`, { line })
      return
    }
    if (!isObject(v)) return report.bad(`line ${line}`, `expected an object {"t", "text"} or {"meta"}, got ${describe(v)}`, { line })
    if ('meta' in v) {
      if (!isObject(v.meta)) return report.bad(`line ${line}`, `"meta" must be an object, got ${describe(v.meta)}`, { line })
      if (open !== null) out.push({ type: 'end', id: open })
      open = `turn-${++turn}`
      out.push({ type: 'message', id: open, meta: v.meta })
      return
    }
    const t = v.t
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) {
      return report.bad(`line ${line}`, `"t" must be a number of milliseconds >= 0, got ${describe(t)}`, { line })
    }
    const kind = typeof v.text === 'string' ? 'text' : typeof v.reasoning === 'string' ? 'reasoning' : null
    if (kind === null) return report.bad(`line ${line}`, 'expected a string "text" (or "reasoning")', { line })
    if (open === null) {
      open = `turn-${++turn}`
      out.push({ type: 'message', id: open })
    }
    out.push({ type: 'chunk', kind, text: v[kind] as string, t })
  })
  if (open !== null) yield [{ type: 'end', id: open }]
}

/**
 * Chunk logs (SPEC 8): JSONL, one `{"t": ms, "text": "…"}` per line, optionally
 * `{"meta": {…}}` first. Cut into lines here (so every line, empty ones too, has its exact
 * number, and one too long is refused before it is held whole), each parsed by stream-json's
 * JSONL line parser: memory holds one line, never the file.
 * @module
 */
import { jsonlParser } from 'stream-json/core/jsonl/parser.js'
import { Reporter, describe, isObject, type LogReadOptions, type LogSource, type ReplayEvent } from './events.js'
import { decodeText, flatten } from './source.js'

/** A line JSON.parse rejected. */
class BadLine {
  constructor(readonly error: Error) {}
}

/** What a chunk log line is, for messages about a line of another shape. */
const SHAPE = 'a chunk log line is {"t": <ms>, "text": "…"} or {"meta": {…}}'

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

/** {@link readChunkLog} in batches, one per piece of input read. @internal */
export async function* chunkLogBatches(source: LogSource, options: LogReadOptions = {}): AsyncGenerator<ReplayEvent[], void, undefined> {
  const report = new Reporter(options)
  const limit = report.limit
  const parseLine = jsonlParser({ errorIndicator: (error: Error) => new BadLine(error) })
  let line = 0
  let turn = 0
  let open: string | null = null
  const take = (text: string, out: ReplayEvent[]): void => {
    line++
    if (text.endsWith('\r')) text = text.slice(0, -1)
    if (text.trim() === '') return
    const item = parseLine(text) as { value: unknown }
    const v = item.value
    if (v instanceof BadLine) return report.bad(`line ${line}`, `not JSON (${v.error.message})`, { line })
    if (!isObject(v)) return report.bad(`line ${line}`, `expected an object, got ${describe(v)} (${SHAPE})`, { line })
    if ('meta' in v) {
      if (!isObject(v.meta)) return report.bad(`line ${line}`, `"meta" must be an object, got ${describe(v.meta)}`, { line })
      if (open !== null) out.push({ type: 'end', id: open })
      open = `turn-${++turn}`
      out.push({ type: 'message', id: open, meta: v.meta })
      return
    }
    const t = v.t
    if (t === undefined) return report.bad(`line ${line}`, `"t" is missing (${SHAPE})`, { line })
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) {
      return report.bad(`line ${line}`, `"t" must be a number of milliseconds >= 0, got ${describe(t)}`, { line })
    }
    const kind = typeof v.text === 'string' ? 'text' : typeof v.reasoning === 'string' ? 'reasoning' : null
    if (kind === null) {
      const got = v.text !== undefined ? `"text" is ${describe(v.text)}` : v.reasoning !== undefined ? `"reasoning" is ${describe(v.reasoning)}` : 'it has neither'
      return report.bad(`line ${line}`, `expected a string "text" (or "reasoning"); ${got}`, { line })
    }
    if (open === null) {
      open = `turn-${++turn}`
      out.push({ type: 'message', id: open })
    }
    out.push({ type: 'chunk', kind, text: v[kind] as string, t })
  }
  let rest = '' // the line being read, up to `limit` characters
  let first = true
  for await (let s of decodeText(source)) {
    if (first) {
      first = false
      if (s.charCodeAt(0) === 0xfeff) s = s.slice(1)
    }
    const out: ReplayEvent[] = []
    try {
      let from = 0
      for (let nl = s.indexOf('\n'); nl >= 0; nl = s.indexOf('\n', from)) {
        if (rest.length + nl - from > limit) throw report.tooLarge(`line ${line + 1}`, 'a line', { line: line + 1 })
        take(rest.length > 0 ? rest + s.slice(from, nl) : s.slice(from, nl), out)
        rest = ''
        from = nl + 1
      }
      // checked before the piece is kept: a line too long for memory is refused as it grows
      if (rest.length + s.length - from > limit) throw report.tooLarge(`line ${line + 1}`, 'a line', { line: line + 1 })
      if (from < s.length) rest += s.slice(from)
    } catch (err) {
      if (out.length > 0) yield out
      throw err
    }
    if (out.length > 0) yield out
  }
  const out: ReplayEvent[] = []
  if (rest.length > 0) take(rest, out) // a bad line pushes nothing before it throws
  if (open !== null) out.push({ type: 'end', id: open })
  if (out.length > 0) yield out
}

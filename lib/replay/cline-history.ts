/**
 * Cline task histories (`api_conversation_history.json`): a JSON array of `{role, content}`.
 * Read with stream-json one array element at a time, so a 1 GB history needs the memory of
 * its largest message, not of the file.
 * @module
 */
import { type Duplex } from 'node:stream'
import streamArray from 'stream-json/streamers/stream-array.js'
import { TagstreamError } from '../errors.js'
import { Reporter, SYNTHETIC_INTERVAL_MS, describe, isObject, splitIntoChunks, type LogReadOptions, type LogSource, type ReplayEvent } from './events.js'
import { decodeText, flatten, readBatches } from './source.js'

/** Separates two text parts of one assistant message in the replayed text. */
const PART_SEPARATOR = '\n\n'

/** Where the feeding stands, for error messages. */
interface FeedState {
  /** Line of the last piece written. */
  line: number
  /** Line of the first piece the parser rejected, or 0. */
  failed: number
  /** An error of the source itself (not of its JSON). */
  sourceError?: unknown
}

/**
 * Feeds `source` to `sink` cut at line ends, so that when the JSON parser rejects a piece we
 * know its line: stream-json's errors carry no position. The write callback of a piece runs
 * once the parser has processed it, with the parser's error if it failed on it.
 */
async function feedByLines(source: LogSource, sink: Duplex, at: FeedState): Promise<void> {
  let line = 1
  try {
    for await (const s of decodeText(source)) {
      let from = 0
      while (from < s.length) {
        const nl = s.indexOf('\n', from)
        const end = nl < 0 ? s.length : nl + 1
        const pieceLine = line
        at.line = line
        const ok = sink.write(s.slice(from, end), (err) => {
          if (err && at.failed === 0) at.failed = pieceLine
        })
        if (nl >= 0) line++
        from = end
        if (!ok) {
          if (sink.destroyed) return
          await new Promise<void>((resolve) => {
            const done = (): void => {
              sink.off('drain', done)
              sink.off('close', done)
              resolve()
            }
            sink.on('drain', done)
            sink.on('close', done)
          })
        }
        if (sink.destroyed) return
      }
    }
    at.line = line // a failure while flushing is about the end of the input
    sink.end()
  } catch (err) {
    at.sourceError = err
    sink.destroy(err as Error)
  }
}

/**
 * Reads a Cline task history and yields each assistant message as one turn; other roles are
 * passed over. In `content`, `text` parts are the model's text (several are joined with a blank
 * line), `thinking` parts become reasoning chunks, `tool_use` parts (native tool calls, with a
 * complete `input`) become `tool` events, their `input` replayed as JSON pieces, and the other
 * parts (images, redacted thinking…) are not replayed. Stored text has no timings, so it is
 * cut into word-sized chunks one {@link SYNTHETIC_INTERVAL_MS} apart.
 *
 * A message or part of the wrong shape fails the read with `ERR_BAD_LOG` naming it
 * (`messages[4]`), or is skipped with a warning (`onError: 'skip'`); invalid JSON names its
 * line and is fatal either way (a JSON document cannot be resynchronised).
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs'
 * import { readClineHistory } from 'tagstream'
 * const file = 'api_conversation_history.json'
 * for await (const e of readClineHistory(createReadStream(file), { file })) console.log(e)
 * ```
 */
export function readClineHistory(source: LogSource, options: LogReadOptions = {}): AsyncGenerator<ReplayEvent, void, undefined> {
  return flatten(clineHistoryBatches(source, options))
}

/** The events of one message of a history, appended to `out`. */
function messageEvents(m: unknown, index: number, turn: number, report: Reporter, out: ReplayEvent[]): boolean {
  const where = `messages[${index}]`
  if (!isObject(m)) {
    report.bad(where, `expected an object {role, content}, got ${describe(m)}`, { index })
    return false
  }
  if (typeof m.role !== 'string') {
    report.bad(where, `"role" must be a string, got ${describe(m.role)}`, { index })
    return false
  }
  if (m.role !== 'assistant') return false
  const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content
  if (!Array.isArray(parts)) {
    report.bad(where, `"content" must be a string or an array of parts, got ${describe(m.content)}`, { index })
    return false
  }
  const id = `turn-${turn}`
  out.push({ type: 'message', id, meta: { index } })
  let t = 0
  let hadText = false
  for (let i = 0; i < parts.length; i++) {
    const p: unknown = parts[i]
    const pw = `${where}.content[${i}]`
    if (!isObject(p) || typeof p.type !== 'string') {
      report.bad(pw, `expected a part {type, …}, got ${describe(p)}`, { index, part: i })
      continue
    }
    if (p.type === 'tool_use') {
      t = toolUseEvents(p, i, pw, index, report, t, out)
      continue
    }
    const field = p.type === 'text' ? 'text' : p.type === 'thinking' ? 'thinking' : null
    if (field === null) continue
    const text = p[field]
    if (typeof text !== 'string') {
      report.bad(pw, `a ${p.type} part needs a string "${field}", got ${describe(text)}`, { index, part: i })
      continue
    }
    const kind = field === 'text' ? 'text' : 'reasoning'
    let whole = text
    if (kind === 'text') {
      if (hadText) whole = PART_SEPARATOR + text
      hadText = true
    }
    for (const piece of splitIntoChunks(whole)) {
      out.push({ type: 'chunk', kind, text: piece, t })
      t += SYNTHETIC_INTERVAL_MS
    }
  }
  out.push({ type: 'end', id })
  return true
}

/**
 * The events of a `tool_use` part (a native tool call stored whole): its `input` is written
 * back as JSON and replayed in word-sized pieces, so the call streams as it did live and goes
 * through the same argument reader (an `input` that is not an object is an invalid call, never
 * run). Returns the time after it.
 */
function toolUseEvents(p: Record<string, unknown>, i: number, pw: string, index: number, report: Reporter, t: number, out: ReplayEvent[]): number {
  if (typeof p.id !== 'string' || typeof p.name !== 'string' || !('input' in p)) {
    report.bad(pw, `a tool_use part needs a string "id", a string "name" and an "input", got id ${describe(p.id)}, name ${describe(p.name)}${'input' in p ? '' : ', no input'}`, { index, part: i })
    return t
  }
  const key = String(i)
  out.push({ type: 'tool', key, id: p.id, name: p.name, args: '', t })
  t += SYNTHETIC_INTERVAL_MS
  for (const piece of splitIntoChunks(JSON.stringify(p.input) ?? '')) {
    out.push({ type: 'tool', key, args: piece, t })
    t += SYNTHETIC_INTERVAL_MS
  }
  out.push({ type: 'tool_end', key })
  return t
}

/** {@link readClineHistory} in batches, one per assistant message. @internal */
export async function* clineHistoryBatches(source: LogSource, options: LogReadOptions = {}): AsyncGenerator<ReplayEvent[], void, undefined> {
  const report = new Reporter(options)
  const messages = streamArray.withParserAsStream({ streamValues: false })
  const at: FeedState = { line: 1, failed: 0 }
  void feedByLines(source, messages, at)
  let turn = 0
  try {
    for await (const items of readBatches<{ key: number; value: unknown }>(messages)) {
      for (const item of items) {
        const out: ReplayEvent[] = []
        if (messageEvents(item.value, item.key, turn + 1, report, out)) {
          turn++
          yield out
        }
      }
    }
  } catch (err) {
    if (err instanceof TagstreamError || err === at.sourceError || !(err instanceof Error)) throw err
    const line = at.failed > 0 ? at.failed : at.line
    throw report.error(`line ${line}`, `invalid JSON (${err.message})`, { line })
  } finally {
    messages.destroy()
  }
}

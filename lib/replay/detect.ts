/**
 * Format detection and the one entry point that reads any supported log.
 * @module
 */
import { TagstreamError } from '../errors.js'
import { anthropicSseBatches } from './anthropic.js'
import { chunkLogBatches } from './chunk-log.js'
import { clineHistoryBatches } from './cline-history.js'
import type { LogReadOptions, LogSource, ReplayEvent } from './events.js'
import { openAISseBatches } from './openai.js'
import { flatten, peek } from './source.js'

/**
 * The log formats of SPEC 8: `chunklog` (JSONL `{t, text}` lines, what `tagstream record`
 * writes), `cline` (a Cline `api_conversation_history.json`), `openai` and `anthropic` (SSE
 * captures of their streaming APIs).
 */
export type LogFormat = 'chunklog' | 'cline' | 'openai' | 'anthropic'

/** Every {@link LogFormat}, for option parsing. */
export const LOG_FORMATS: readonly LogFormat[] = Object.freeze(['chunklog', 'cline', 'openai', 'anthropic'])

/**
 * Guesses a log's format from its first bytes: a JSON array is a Cline history, a JSON object
 * line a chunk log, SSE fields (`data:`, `event:`, `:` comments) an SSE capture, Anthropic's if
 * it names Anthropic event types, OpenAI's if it has `choices`. `undefined` when none fits
 * (plain text, or SSE of another API).
 * @example
 * ```ts
 * detectLogFormat('[{"role":"user","content":"hi"}]') // 'cline'
 * detectLogFormat('data: {"choices":[{"delta":{"content":"Hi"}}]}\n\n') // 'openai'
 * ```
 */
export function detectLogFormat(head: string): LogFormat | undefined {
  const s = head.replace(/^\uFEFF/u, '').trimStart()
  if (s.startsWith('[')) return 'cline'
  if (s.startsWith('{')) return isJsonDocument(s) ? undefined : 'chunklog'
  if (/^(?:data|event|id|retry)?:/u.test(s)) {
    if (/"type"\s*:\s*"(?:message_start|content_block_\w+|message_delta|ping)"|^event:\s*(?:message_start|content_block_\w+|ping)/mu.test(s)) return 'anthropic'
    if (/"choices"\s*:|chat\.completion/u.test(s)) return 'openai'
  }
  return undefined
}

/**
 * Whether text that starts with `{` is a JSON document over several lines (package.json) rather
 * than a chunk log: its first line, complete in the head, is no JSON value by itself.
 */
function isJsonDocument(s: string): boolean {
  const nl = s.indexOf('\n')
  if (nl < 0) return false
  try {
    JSON.parse(s.slice(0, nl))
    return false
  } catch {
    return true
  }
}

/** The formats, said to someone whose input is none of them. */
const EXPECTED = 'expected a chunk log (JSONL lines {"t", "text"}), a Cline history (a JSON array of messages), or an OpenAI or Anthropic SSE capture; --format picks one (chunklog, cline, openai, anthropic)'

/**
 * What {@link sniffLog} found.
 * @example
 * ```ts
 * const s: SniffedLog = await sniffLog(['{"t":0,"text":"Hi"}\n'])
 * s.format // 'chunklog'
 * ```
 */
export interface SniffedLog {
  /** The log's format, or `undefined` when the input is no log tagstream reads (plain text). */
  format: LogFormat | undefined
  /** Whether the input is empty (or white space only). */
  empty: boolean
  /** The whole input, its first bytes included. */
  source: AsyncIterable<string | Uint8Array>
  /** Releases the input when `source` will not be read. */
  close: () => Promise<void>
}

/**
 * Looks at a source's first bytes and tells its log format, without losing them: `source` yields
 * the whole input again, or `close` releases it when it will not be read. For a program that
 * takes a log or plain text (`format` is then `undefined`).
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs'
 * import { sniffLog, readLog } from 'tagstream'
 * const { format, source } = await sniffLog(createReadStream('input'))
 * if (format !== undefined) for await (const e of readLog(source, { format })) console.log(e)
 * ```
 */
export async function sniffLog(source: LogSource): Promise<SniffedLog> {
  const p = await peek(source)
  return { format: detectLogFormat(p.head), empty: p.whole && p.head.replace(/^\uFEFF/u, '').trim() === '', source: p.source, close: p.close }
}

/**
 * Options of {@link readLog}.
 * @example
 * ```ts
 * const opts: ReadLogOptions = { file: 'x.sse', format: 'anthropic', onError: 'skip' }
 * ```
 */
export interface ReadLogOptions extends LogReadOptions {
  /** The format; detected from the first bytes when absent. */
  format?: LogFormat
}

/**
 * Reads a log of any supported format, detected from its first bytes unless `format` is given,
 * yielding its assistant turns as {@link ReplayEvent}s. An empty input (`<file>: empty input`),
 * or one whose format cannot be told (`<file>: line 1: not a log tagstream knows: expected …`),
 * fails with `ERR_BAD_LOG`.
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs'
 * import { readLog } from 'tagstream'
 * for await (const e of readLog(createReadStream('log.jsonl'), { file: 'log.jsonl' })) console.log(e)
 * ```
 */
export function readLog(source: LogSource, options: ReadLogOptions = {}): AsyncGenerator<ReplayEvent, void, undefined> {
  return flatten(readLogBatches(source, options))
}

/**
 * {@link readLog} in batches: the events an input chunk gave (a chunk log, an SSE capture) or a
 * whole message (a history), in arrays. The same events, for consumers that handle millions of
 * them: one await per batch instead of one per event (with {@link ReplayDiffer}, the CLI's
 * replay runs several times faster than event by event).
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs'
 * import { readLogBatches, ReplayDiffer } from 'tagstream'
 * const differ = new ReplayDiffer()
 * for await (const batch of readLogBatches(createReadStream('big.jsonl'))) {
 *   for (const e of batch) for (const d of differ.push(e)) console.log(JSON.stringify(d))
 * }
 * ```
 */
export async function* readLogBatches(source: LogSource, options: ReadLogOptions = {}): AsyncGenerator<ReplayEvent[], void, undefined> {
  let format = options.format
  if (format !== undefined && !LOG_FORMATS.includes(format)) {
    throw new TagstreamError('ERR_INVALID_OPTION', `unknown log format ${JSON.stringify(format)} (${LOG_FORMATS.join(', ')})`, { option: 'format' })
  }
  const file = options.file ?? '<input>'
  // with the format given, the first chunk is enough to tell an empty input: a live stream is
  // not held up until 4 KiB have come
  const p = await peek(source, format === undefined ? 4096 : 1)
  const input: LogSource = p.source
  const head = p.head.replace(/^\uFEFF/u, '').trimStart()
  if (p.whole && head === '') {
    await p.close()
    throw new TagstreamError('ERR_BAD_LOG', `${file}: empty input`, { file })
  }
  if (format === undefined) {
    format = detectLogFormat(head)
    if (format === undefined) {
      await p.close()
      throw new TagstreamError('ERR_BAD_LOG', head.startsWith('{')
        ? `${file}: a JSON document, not a log tagstream knows: ${EXPECTED}`
        : `${file}: line 1: not a log tagstream knows: ${EXPECTED}`, { file, line: 1 })
    }
  }
  switch (format) {
    case 'chunklog': yield* chunkLogBatches(input, options); break
    case 'cline': yield* clineHistoryBatches(input, options); break
    case 'openai': yield* openAISseBatches(input, options); break
    case 'anthropic': yield* anthropicSseBatches(input, options); break
  }
}

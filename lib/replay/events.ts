/**
 * What log readers produce: a flat stream of replay events, one assistant turn after another.
 * Flat rather than nested so a reader never holds more than the chunk at hand, and so the
 * stream composes with `pipeline` like any other object stream.
 * @module
 */
import { TagstreamError } from '../errors.js'
import { DEFAULT_MAX_BYTES } from '../streams/session.js'

/**
 * An assistant turn begins. Every chunk until the matching {@link ReplayEndEvent} belongs to it.
 * @example
 * ```ts
 * const e: ReplayMessageEvent = { type: 'message', id: 'turn-1', meta: { index: 1 } }
 * ```
 * @group Replay
 */
export interface ReplayMessageEvent {
  /** Discriminant. */
  type: 'message'
  /** Deterministic id: `turn-<n>`, n counting assistant turns of the log from 1. */
  id: string
  /** What the log says about the turn (a chunk log's `meta` line, an SSE stream's model, …). */
  meta?: Record<string, unknown>
}

/**
 * A piece of the model's output with its time. `reasoning` chunks come from a provider's own
 * reasoning stream (Anthropic `thinking_delta`, a history's `thinking` part), not from tags.
 * @example
 * ```ts
 * const e: ReplayChunkEvent = { type: 'chunk', kind: 'text', text: '<read_file>', t: 120 }
 * ```
 * @group Replay
 */
export interface ReplayChunkEvent {
  /** Discriminant. */
  type: 'chunk'
  /** `text` goes to the tag parser; `reasoning` becomes a reasoning block. */
  kind: 'text' | 'reasoning'
  /** The chunk, decoded. */
  text: string
  /**
   * Milliseconds since the turn began: recorded for chunk logs, synthetic
   * ({@link SYNTHETIC_INTERVAL_MS} per chunk) for formats that carry no timings.
   */
  t: number
}

/**
 * A piece of a native tool call (SPEC 8a): `key` names the call within the turn; `id` (the
 * provider's call id) and `name` come with its first piece; `args` is a piece of its argument
 * JSON. The call becomes a `tool_use` block with `isNativeToolCall: true` after the blocks of
 * the turn so far.
 * @example
 * ```ts
 * const e: ReplayToolEvent = { type: 'tool', key: '0', id: 'call_1', name: 'read_file', args: '{"path":', t: 60 }
 * ```
 * @group Replay
 */
export interface ReplayToolEvent {
  /** Discriminant. */
  type: 'tool'
  /** The call's key within the turn (OpenAI `index`, Anthropic content block index, …). */
  key: string
  /** The provider's call id, on the call's first piece (else the replay's id generator gives one). */
  id?: string
  /** The tool's name, on the call's first piece. */
  name?: string
  /** A piece of the argument JSON (may be empty). */
  args: string
  /** As in {@link ReplayChunkEvent}. */
  t: number
}

/**
 * Native tool call `key` has ended (no key: every call of the turn still open). `cut`: stopped
 * by a limit (`max_tokens`), so no argument text at all means incomplete rather than none.
 * @example
 * ```ts
 * const e: ReplayToolEndEvent = { type: 'tool_end', key: '0' }
 * ```
 * @group Replay
 */
export interface ReplayToolEndEvent {
  /** Discriminant. */
  type: 'tool_end'
  /** The call that ended; absent: every open call. */
  key?: string
  /** Stopped by a limit rather than finished (default `false`). */
  cut?: boolean
}

/**
 * The assistant turn `id` has no more chunks.
 * @example
 * ```ts
 * const e: ReplayEndEvent = { type: 'end', id: 'turn-1' }
 * ```
 * @group Replay
 */
export interface ReplayEndEvent {
  /** Discriminant. */
  type: 'end'
  /** The id of the matching {@link ReplayMessageEvent}. */
  id: string
}

/**
 * What the readers accept: a Node Readable (a file stream, stdin), or any (async) iterable of
 * text or bytes. Bytes are UTF-8.
 * @group Replay
 */
export type LogSource = AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>

/**
 * Anything a log reader yields: turns framed by `message` / `end`, chunks and native calls between.
 * @group Replay
 */
export type ReplayEvent = ReplayMessageEvent | ReplayChunkEvent | ReplayToolEvent | ReplayToolEndEvent | ReplayEndEvent

/**
 * Options shared by every log reader.
 * @example
 * ```ts
 * const opts: LogReadOptions = { file: 'history.json', onError: 'skip', onWarning: (e) => console.error(e.message) }
 * ```
 * @group Replay
 */
export interface LogReadOptions {
  /** Name used in error messages (default `<input>`). */
  file?: string
  /**
   * `fail` (default): a malformed line or event ends the read with an `ERR_BAD_LOG` error.
   * `skip`: it is reported to `onWarning` and the read goes on. Errors that leave no way to
   * resynchronise (invalid JSON syntax in a JSON document) are fatal either way.
   */
  onError?: 'fail' | 'skip'
  /**
   * Receives each skipped problem (an `ERR_BAD_LOG` error). Default: `process.emitWarning`, so
   * nothing is ever dropped silently.
   */
  onWarning?: (warning: TagstreamError) => void
  /**
   * The most a reader holds of one line, event or value before it has been handed on (default
   * 64 MiB, the parser's own `maxBytes`, so one option bounds both). A longer JSONL line or SSE
   * event fails with `ERR_MESSAGE_TOO_LARGE` naming it, before it is buffered whole. A history's
   * text is streamed as it is read, so this bounds only what must wait: a message's content
   * (text and tool arguments) read before its `role`, a part's text before its `type`, a
   * `tool_use` input before the part's `type`, `id` and `name`.
   */
  maxBytes?: number
}

/**
 * Default of {@link LogReadOptions.maxBytes}: the parser's default `maxBytes`. @internal
 * @group Replay
 */
export const DEFAULT_READ_LIMIT = DEFAULT_MAX_BYTES

/**
 * Pace of formats without timings (Cline histories, SSE captures): one chunk per this many
 * milliseconds, about the speed of a fast model, so `--speed 1` looks like a live stream.
 * @group Replay
 */
export const SYNTHETIC_INTERVAL_MS = 30

/**
 * Resolved reader options and the reporting helpers every reader uses. @internal
 * @group Replay
 */
export class Reporter {
  readonly file: string
  /** {@link LogReadOptions.maxBytes}, checked. */
  readonly limit: number
  private readonly skip: boolean
  private readonly warn: (w: TagstreamError) => void

  constructor(o: LogReadOptions = {}) {
    const onError = o.onError ?? 'fail'
    if (onError !== 'fail' && onError !== 'skip') {
      throw new TagstreamError('ERR_INVALID_OPTION', `option onError must be 'fail' or 'skip', got ${JSON.stringify(onError)}`, { option: 'onError' })
    }
    const limit = o.maxBytes ?? DEFAULT_READ_LIMIT
    if (!(typeof limit === 'number' && limit >= 0)) {
      throw new TagstreamError('ERR_INVALID_OPTION', 'option maxBytes must be a non-negative number', { option: 'maxBytes' })
    }
    this.limit = limit
    this.file = o.file ?? '<input>'
    this.skip = onError === 'skip'
    this.warn = o.onWarning ?? ((w) => process.emitWarning(w.message, { code: w.code }))
  }

  /** An `ERR_BAD_LOG` error for `where` (e.g. `line 3`, `event 7`). */
  error(where: string, what: string, details: Record<string, unknown> = {}): TagstreamError {
    return new TagstreamError('ERR_BAD_LOG', `${this.file}: ${where}: ${what}`, { file: this.file, ...details })
  }

  /** The error for a line, event or value over {@link limit}, found before it was read whole. */
  tooLarge(where: string, what: string, details: Record<string, unknown> = {}): TagstreamError {
    return new TagstreamError('ERR_MESSAGE_TOO_LARGE', `${this.file}: ${where}: ${what} exceeds maxBytes (${this.limit})`, { file: this.file, maxBytes: this.limit, ...details })
  }

  /** A malformed but skippable item: throws in `fail` mode, warns in `skip` mode. */
  bad(where: string, what: string, details: Record<string, unknown> = {}): void {
    const err = this.error(where, what, details)
    if (!this.skip) throw err
    this.warn(new TagstreamError('ERR_BAD_LOG', `${err.message} (skipped)`, err.details))
  }
}

/**
 * Splits a whole text into token-sized pieces (a word with its leading white space, long words
 * cut at 16 characters), so text stored whole (a history) still replays as a stream. The cut is
 * a pure function of the text: replays stay deterministic.
 * @internal
 * @group Replay
 */
export function splitIntoChunks(text: string): string[] {
  return text.match(/\s*\S{1,16}|\s+/gu) ?? []
}

const PIECE = /\s*\S{1,16}|\s+/gu
const ALL_SPACE = /^\s*$/u

/**
 * {@link splitIntoChunks} of a text that arrives in pieces: the same chunks, whatever the cuts,
 * each handed to `emit` as soon as the text after it shows where it ends. The pieces tile the
 * text, so only the last one (the one that reaches the end of what has come) can still grow;
 * it is kept back, and is short unless it is a run of white space, which is gathered without
 * being scanned again (a long run costs linear time).
 * @internal
 * @group Replay
 */
export class ChunkSplitter {
  private carry = ''
  private carrySpace = true

  constructor(private readonly emit: (piece: string) => void) {}

  /** Takes the next piece of the text. */
  push(s: string): void {
    if (s.length === 0) return
    if (this.carrySpace && ALL_SPACE.test(s)) {
      this.carry += s
      return
    }
    const buf = this.carry + s
    PIECE.lastIndex = 0
    for (;;) {
      const m = PIECE.exec(buf)! // the pieces tile a non-empty text: there is always one more
      if (m.index + m[0].length === buf.length) {
        this.carry = m[0]
        this.carrySpace = ALL_SPACE.test(m[0])
        return
      }
      this.emit(m[0])
    }
  }

  /** The text is complete: its last chunk. */
  end(): void {
    if (this.carry.length > 0) this.emit(this.carry)
    this.carry = ''
    this.carrySpace = true
  }
}

/**
 * A short, safe description of a value for error messages. @internal
 * @group Replay
 */
export function describe(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (v === undefined) return 'nothing'
  if (typeof v === 'string') return `a string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`
}

/**
 * Whether `v` is a plain JSON object. @internal
 * @group Replay
 */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

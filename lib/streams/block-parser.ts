/**
 * BlockParser: a Transform from text chunks to block diffs (SPEC 6).
 * @module
 */
import { Transform, type TransformCallback, type TransformOptions } from 'node:stream'
import type { Block, Diagnostic } from '../types.js'
import { DiffSession, type StreamParseOptions } from './session.js'

/**
 * Options of {@link BlockParser}: the parse and stream-parse options, plus the usual stream
 * options that make sense here.
 * @example
 * ```ts
 * const opts: BlockParserOptions = { profile: 'robust', diagnosticRecords: true, highWaterMark: 64 }
 * ```
 */
export interface BlockParserOptions extends StreamParseOptions {
  /** Readable-side buffer, in diff records (default 16). */
  highWaterMark?: number
  /** Writable-side buffer, in chunks (default 16). */
  writableHighWaterMark?: number
  /** Destroys the stream with an AbortError when aborted. */
  signal?: AbortSignal
}

/**
 * A Transform stream: text chunks (`string`, `Buffer`, `Uint8Array`; UTF-8) in, block diffs
 * out in object mode. After every chunk, applying the diffs emitted so far to `[]` gives exactly
 * `parseAssistantMessage(text so far)`; no diff is emitted for a chunk that changes nothing.
 * At the end, every still-partial block gets a `complete` diff (unless `completeOnEnd: false`).
 *
 * Errors (`ERR_INVALID_CHUNK`, `ERR_MESSAGE_TOO_LARGE`) destroy the stream; nothing throws out
 * of `write()`, and `blocks` / `text` keep what was parsed before the error.
 *
 * Events: `diagnostic` (a {@link Diagnostic}) with the `diagnostics` option.
 * @example
 * ```ts
 * import { pipeline } from 'node:stream/promises'
 * import { Readable, Writable } from 'node:stream'
 * import { BlockParser } from 'tagstream'
 *
 * const parser = new BlockParser()
 * await pipeline(
 *   Readable.from(['Hi <read_fi', 'le><path>a.ts</path></read_file>']),
 *   parser,
 *   new Writable({ objectMode: true, write(diff, _enc, cb) { console.log(diff); cb() } }),
 * )
 * parser.blocks // [ {type:'text', content:'Hi', ...}, {type:'tool_use', name:'read_file', ...} ]
 * ```
 */
export class BlockParser extends Transform {
  private readonly session: DiffSession
  /** A write callback held while the readable side is full; `_read` releases it. */
  private waiting: ((error?: Error | null) => void) | null = null
  /** See {@link BlockParser.stopParsing}. */
  private parsingStopped = false

  /** @param options - see {@link BlockParserOptions} */
  constructor(options: BlockParserOptions = {}) {
    const streamOptions: TransformOptions = {
      writableObjectMode: true,
      readableObjectMode: true,
      decodeStrings: false,
    }
    if (options.highWaterMark !== undefined) streamOptions.readableHighWaterMark = options.highWaterMark
    if (options.writableHighWaterMark !== undefined) streamOptions.writableHighWaterMark = options.writableHighWaterMark
    if (options.signal !== undefined) streamOptions.signal = options.signal
    super(streamOptions)
    this.session = new DiffSession(options, {
      record: (r) => this.push(r),
      diagnostic: (d) => this.emit('diagnostic', d),
    })
  }

  /** The current snapshot: what the diffs emitted so far add up to. */
  get blocks(): Block[] {
    return this.session.blocks
  }

  /** The text received so far (decoded). */
  get text(): string {
    return this.session.text
  }

  /** Diagnostics reported so far (with the `diagnostics` option). */
  get diagnostics(): Diagnostic[] {
    return this.session.diagnostics
  }

  /**
   * Stops parsing: a chunk written from now on is neither parsed nor acknowledged (its write
   * callback never fires), so the source stays held back by backpressure until the stream is
   * destroyed. The diffs already emitted stay readable, and `blocks` / `text` keep what was
   * parsed. The end of input still completes the partial blocks (`complete` diffs) if every chunk
   * had been parsed before the stop.
   *
   * A {@link Presenter} calls it on the BlockParser piped into it when it interrupts (one tool per
   * message, or a rejection): it then reads exactly the diffs produced before the interrupt, to
   * give every tool call in them a `skipped` result, and the source produces nothing more.
   * @example
   * ```ts
   * const parser = createBlockParser()
   * parser.on('data', (d) => { if (d.op === 'add' && d.block.type === 'tool_use') parser.stopParsing() })
   * ```
   */
  stopParsing(): void {
    this.parsingStopped = true
  }

  /**
   * Node's Writable throws synchronously on a `null` chunk; a parser must not throw from
   * `write()`, so that case fails the stream like any other bad chunk.
   */
  override write(chunk: unknown, encoding?: BufferEncoding | ((error: Error | null | undefined) => void), cb?: (error: Error | null | undefined) => void): boolean {
    if (chunk === null) {
      this.destroy(this.session.invalidChunk(chunk))
      return false
    }
    return super.write(chunk, encoding as BufferEncoding, cb)
  }

  /**
   * Transform's own `_write` wraps `_transform` in a new closure per chunk; on streams of
   * hundreds of thousands of 16-byte chunks that shows. This does the same job directly: the
   * write callback waits while the readable side is full, and `_read` releases it.
   * @internal
   */
  override _write(chunk: unknown, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.parsingStopped) return // held for good: see stopParsing
    const before = this.readableLength
    try {
      this.session.push(chunk)
    } catch (err) {
      callback(err as Error)
      return
    }
    const after = this.readableLength
    // as Transform does: go on if this chunk added nothing or the readable side has room
    if (after === before || after < this.readableHighWaterMark || this.writableEnded) callback()
    else this.waiting = callback
  }

  /** @internal */
  override _read(): void {
    const cb = this.waiting
    if (cb !== null) {
      this.waiting = null
      cb()
    }
  }

  /** @internal */
  override _flush(callback: TransformCallback): void {
    try {
      this.session.end()
    } catch (err) {
      callback(err as Error)
      return
    }
    callback()
  }
}

/**
 * Factory for {@link BlockParser}, in the style of stream-json's components.
 * @example
 * ```ts
 * import { pipeline } from 'node:stream/promises'
 * import { createReadStream } from 'node:fs'
 * import { createBlockParser } from 'tagstream'
 * await pipeline(createReadStream('reply.txt'), createBlockParser({ profile: 'robust' }), async function* (diffs) {
 *   for await (const d of diffs) console.log(JSON.stringify(d))
 * })
 * ```
 */
export function createBlockParser(options: BlockParserOptions = {}): BlockParser {
  return new BlockParser(options)
}

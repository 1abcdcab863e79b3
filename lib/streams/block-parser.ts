/**
 * BlockParser: a Transform from text chunks to block diffs (SPEC 6).
 * @module
 */
import { Transform, type TransformCallback, type TransformOptions } from 'node:stream'
import type { Readable } from 'node:stream'
import type { Block, Diagnostic, DiffRecord } from '../types.js'
import type { Emitted } from './records.js'
import { DiffSession, type StreamParseOptions } from './session.js'
import { WritableTaker, takesRecordsPlainly } from './writable-taker.js'
import { ParserOutput, type RecordTaker } from './parser-output.js'

/**
 * Options of {@link BlockParser}: the parse and stream-parse options, plus the usual stream
 * options that make sense here.
 * @example
 * ```ts
 * const opts: BlockParserOptions = { profile: 'robust', diagnosticRecords: true, highWaterMark: 64 }
 * ```
 * @group Streams
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
 * The `emit` option that yields records of type `R`: a BlockParser's type says what it emits, so
 * `new BlockParser({ emit: 'snapshots' })` must say `new BlockParser<Block[]>(…)` (or use
 * {@link createBlockParser}, which works it out from the options).
 * @group Streams
 */
export type EmitOption<R extends DiffRecord | Block[]> = [R] extends [Block[]]
  ? Record<'emit', 'snapshots'>
  : [R] extends [DiffRecord] ? Partial<Record<'emit', 'diffs'>> : unknown

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
 *
 * Piped into a {@link Presenter} or an object-mode Writable as its one reader, the parser hands
 * each record to that stream directly rather than through its readable side, with the same
 * order and backpressure as `pipe`; a `data` or `readable` listener, or `unpipe`, ends that.
 * The one visible difference: `readableDidRead` stays `false` while every record went directly.
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
 * @group Streams
 */
export class BlockParser<R extends DiffRecord | Block[] = DiffRecord> extends Transform {
  /**
   * One parser kept for the life of the process, for the reason given at DiffSession's keeper:
   * the maps of a BlockParser and of its stream states die with the last parser, and with them
   * the optimised code of Node's stream functions as they run on a parser.
   */
  static readonly #keeper: BlockParser = new BlockParser()

  private readonly session: DiffSession
  /** A write callback held while the readable side is full; `_read` releases it. */
  private waiting: ((error?: Error | null) => void) | null = null
  /**
   * A chunk written directly (see `write`) filled the readable side: what comes next waits for
   * `_read`, as the callback of a chunk that `_write` parsed would (`waiting`). The next chunk is
   * then held unparsed (`heldChunk`, its callback `heldCallback`), and so is the flush.
   */
  private blocked = false
  private heldChunk: unknown = null
  private heldCallback: ((error?: Error | null) => void) | null = null
  private heldFlush: TransformCallback | null = null
  /** See {@link BlockParser.stopParsing}. */
  private parsingStopped = false
  /**
   * `write` found the Writable idle (nothing buffered or held, not corked, ended or destroyed)
   * and nothing has changed that since: the Writable's own `write`, `cork`, `end` and `destroy`
   * clear this. Reading that state on every chunk takes four getters, and V8 may leave them out
   * of line once `write` is inlined into the upstream's `pipe` handler (whose code is shared by
   * every pipe, a Presenter's `write` included).
   */
  private idle = false
  /** Where the session's records go: pushed, or to the stream the parser is fused with. */
  private readonly out: ParserOutput
  /** The parser's own `newListener` listener while fused: a second reader ends the fusion. */
  private fusedListener: ((event: string | symbol) => void) | null = null

  /** @param options - see {@link BlockParserOptions} */
  constructor(options: BlockParserOptions & EmitOption<R> = {} as BlockParserOptions & EmitOption<R>) {
    const streamOptions: TransformOptions = {
      writableObjectMode: true,
      readableObjectMode: true,
      decodeStrings: false,
    }
    if (options.highWaterMark !== undefined) streamOptions.readableHighWaterMark = options.highWaterMark
    if (options.writableHighWaterMark !== undefined) streamOptions.writableHighWaterMark = options.writableHighWaterMark
    if (options.signal !== undefined) streamOptions.signal = options.signal
    super(streamOptions)
    this.out = new ParserOutput(this)
    this.session = new DiffSession(options, this.out)
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
   * Hands the records to `taker` directly, bypassing the readable side, while `taker` is this
   * parser's one reader through `pipe`: called by the {@link Presenter} on its `pipe` event, and
   * by `pipe` itself for an object-mode Writable. A piped record goes through `push`, the
   * Readable's buffer check, a `data` event and the pipe's handler before it reaches
   * `taker.write`: on a stream of 16-byte chunks, two fifths of what the Presenter adds to the
   * pipeline (about 440 instructions a record, by callgrind), and about 250 instructions a chunk
   * of a BlockParser piped into a no-op Writable (3,243 against 2,972). A record
   * is offered only when `push` would deliver it at once (the readable side flowing and empty,
   * not inside `_read`) and `taker` takes it only when its `write` would present it at once;
   * otherwise it is pushed as usual, so the order holds. Anyone else who starts reading (a
   * `data` or `readable` listener) or an `unpipe` ends the fusion (a later `pipe` may start
   * another). One difference shows: `readableDidRead` stays false while every record went
   * straight to `taker`.
   * @internal
   */
  fuse(taker: RecordTaker): void {
    this.unfuse()
    // the pipe's own `data` listener is the one there is (a `readable` listener stops the flow,
    // which each record checks)
    if (this.listenerCount('data') !== 1) return
    this.out.fused = taker
    this.session.lends = taker.offerAppend !== undefined
    const onListener = (event: string | symbol): void => {
      if (event === 'data' || event === 'readable') this.unfuse()
    }
    ;(this as Transform).on('newListener', onListener)
    this.fusedListener = onListener
  }

  /**
   * `pipe`, and when `destination` is an object-mode Writable with Node's own `write` and it is
   * the parser's one reader, a fusion with it (see {@link BlockParser.fuse}): each record is
   * written to it directly, as `pipe`'s `data` handler would write it, while that write cannot
   * return `false`; otherwise the record takes `pipe`'s way, which pauses the parser for `drain`.
   * (A {@link Presenter} fuses itself, on its `pipe` event.)
   * @internal
   */
  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    const out = super.pipe(destination, options)
    if (this.out.fused === null && takesRecordsPlainly(destination)) this.fuse(new WritableTaker(destination, () => this.pause()))
    return out
  }

  /** `unpipe`, which also ends a fusion with a Writable it unpipes. @internal */
  override unpipe(destination?: NodeJS.WritableStream): this {
    const f = this.out.fused
    if (f instanceof WritableTaker && (destination === undefined || f.dest === destination)) this.unfuse()
    return super.unpipe(destination)
  }

  /** Ends a fusion (see {@link BlockParser.fuse}): every later record is pushed. @internal */
  unfuse(): void {
    this.out.fused = null
    this.session.lends = false
    const l = this.fusedListener
    if (l !== null) {
      this.fusedListener = null
      ;(this as Transform).removeListener('newListener', l)
    }
  }

  /**
   * Node's Writable throws synchronously on a `null` chunk; a parser must not throw from
   * `write()`, so that case fails the stream like any other bad chunk.
   *
   * A chunk written with no callback and no encoding (as `pipe` and `pipeline` write) to an idle
   * parser (nothing buffered, held, corked or ended) is parsed here, without the Writable's
   * buffer, callback and after-write tick: on a stream of 16-byte chunks those cost about as much
   * as parsing the chunk. The outcome is the Writable's: an idle Writable hands the chunk to
   * `_write` at once, which parses it and completes synchronously unless the chunk filled the
   * readable side; then what follows waits for a read (`blocked`), as it would behind the held
   * callback, and `write` returns `true` in both cases. One difference shows only under `cork`:
   * the chunk that waits behind a direct write has already been handed to `_write`, so a read
   * while corked parses it, where the Writable would keep it buffered until `uncork`. The records
   * and their order are the same; they may only become readable one read sooner.
   * @internal
   */
  override write(chunk: unknown, encoding?: BufferEncoding | ((error: Error | null | undefined) => void), cb?: (error: Error | null | undefined) => void): boolean {
    if (chunk === null) {
      this.destroy(this.session.invalidChunk(chunk))
      return false
    }
    if (encoding === undefined && cb === undefined && !this.blocked && !this.parsingStopped
      && (this.idle || (this.idle = this.writableLength === 0 && this.writableCorked === 0 && !this.writableEnded && !this.destroyed))) {
      const before = this.readableLength
      try {
        this.session.push(chunk)
      } catch (err) {
        this.destroy(err as Error)
        return false
      }
      const after = this.readableLength
      if (after !== before && after >= this.readableHighWaterMark) this.blocked = true
      return true
    }
    // the Writable may keep this chunk's callback (the readable side is full), or buffer it
    this.idle = false
    return super.write(chunk, encoding as BufferEncoding, cb)
  }

  /** @internal */
  override cork(): void {
    this.idle = false
    super.cork()
  }

  /** @internal */
  override end(cb?: () => void): this
  override end(chunk: unknown, cb?: () => void): this
  override end(chunk: unknown, encoding: BufferEncoding, cb?: () => void): this
  override end(...args: unknown[]): this {
    this.idle = false
    return Reflect.apply(Transform.prototype.end, this, args) as this
  }

  /** @internal */
  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.idle = false
    callback(err)
  }

  /**
   * Transform's own `_write` wraps `_transform` in a new closure per chunk; on streams of
   * hundreds of thousands of 16-byte chunks that shows. This does the same job directly: the
   * write callback waits while the readable side is full, and `_read` releases it.
   * @internal
   */
  override _write(chunk: unknown, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.parsingStopped) return // held for good: see stopParsing
    if (this.blocked) {
      // behind a direct write that filled the readable side: parsed when it is read (`_read`)
      this.heldChunk = chunk
      this.heldCallback = callback
      return
    }
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
    this.out.reading = true
    try {
      this.readOn()
    } finally {
      this.out.reading = false
    }
  }

  /** What `_read` does: releases a held chunk or flush, or the write callback held. */
  private readOn(): void {
    if (this.blocked) {
      this.blocked = false
      const held = this.heldCallback
      if (held !== null) {
        const chunk = this.heldChunk
        this.heldChunk = this.heldCallback = null
        this._write(chunk, 'utf8', held)
        return
      }
      const flush = this.heldFlush
      if (flush !== null) {
        this.heldFlush = null
        this._flush(flush)
      }
      return
    }
    const cb = this.waiting
    if (cb !== null) {
      this.waiting = null
      cb()
    }
  }

  /** @internal */
  override _flush(callback: TransformCallback): void {
    if (this.blocked) {
      this.heldFlush = callback
      return
    }
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
 * The events of a {@link BlockParser} whose records are of type `R`, by name: the arguments each
 * listener gets. `data` carries what `emit` asks for (see {@link Emitted}).
 * @example
 * ```ts
 * const parser = createBlockParser({ diagnostics: true })
 * parser.on('diagnostic', (d) => console.warn(d.code, d.offset))   // d: Diagnostic
 * parser.on('data', (r) => { if (r.op === 'add') console.log(r.block) })  // r: DiffRecord
 * ```
 * @group Streams
 */
export interface BlockParserEvents<R extends DiffRecord | Block[] = DiffRecord> {
  /** A record: a diff, marker or diagnostic record, or a snapshot with `emit: 'snapshots'`. */
  data: [record: R]
  /** A diagnostic, with the `diagnostics` option. */
  diagnostic: [diagnostic: Diagnostic]
  /** The stream and its resources are closed. */
  close: []
  /** The writable side can take more chunks. */
  drain: []
  /** Every record has been read. */
  end: []
  /** The stream failed (`TagstreamError` with a `code`, or an `AbortError`). */
  error: [err: Error]
  /** Every chunk has been written. */
  finish: []
  /** Reading was paused. */
  pause: []
  /** A source was piped in. */
  pipe: [src: Readable]
  /** A record can be read. */
  readable: []
  /** Reading resumed. */
  resume: []
  /** A source was unpiped. */
  unpipe: [src: Readable]
}

/**
 * A listener of event `K` of {@link BlockParserEvents}; it may declare more parameters than the
 * event gives (`once('close', resolve)`).
 * @group Streams
 */
export type ParserListener<R extends DiffRecord | Block[], K extends keyof BlockParserEvents<R>> = (...args: [...BlockParserEvents<R>[K], ...unknown[]]) => void

/**
 * The BlockParser's typed surface: its events by name, and iteration and `read()` typed by the
 * `emit` option (a Transform's are `any`).
 * @group Streams
 */
export interface BlockParser<R extends DiffRecord | Block[] = DiffRecord> {
  /** Adds a listener of a {@link BlockParserEvents} event. */
  on<K extends keyof BlockParserEvents<R>>(event: K, listener: ParserListener<R, K>): this
  /** Adds a one-time listener of a {@link BlockParserEvents} event. */
  once<K extends keyof BlockParserEvents<R>>(event: K, listener: ParserListener<R, K>): this
  /** Removes a listener. */
  off<K extends keyof BlockParserEvents<R>>(event: K, listener: ParserListener<R, K>): this
  /** Adds a listener (the same as `on`). */
  addListener<K extends keyof BlockParserEvents<R>>(event: K, listener: ParserListener<R, K>): this
  /** Removes a listener (the same as `off`). */
  removeListener<K extends keyof BlockParserEvents<R>>(event: K, listener: ParserListener<R, K>): this
  /** Adds a listener before the others. */
  prependListener<K extends keyof BlockParserEvents<R>>(event: K, listener: ParserListener<R, K>): this
  /** Adds a one-time listener before the others. */
  prependOnceListener<K extends keyof BlockParserEvents<R>>(event: K, listener: ParserListener<R, K>): this
  /** Emits an event with its typed arguments. */
  emit<K extends keyof BlockParserEvents<R>>(event: K, ...args: BlockParserEvents<R>[K]): boolean
  /**
   * Not callable (its argument is `never`): it makes the parser assignable to Node's
   * `NodeJS.ReadWriteStream`, whose `read` returns `string | Buffer`, so that `pipeline` takes it
   * after a source that is not a stream (an async generator, an array). A call resolves to the
   * typed signature below.
   * @internal
   */
  read(untyped: never): any
  /** The next record, or `null` when none is buffered. */
  read(size?: number): R | null
  /**
   * The same iterator as Node's Transform types it, for the assignability that `read(untyped)`
   * gives (see there). `for await`, and inference from the parser (a `pipeline` stage after it),
   * take the typed signature below; a direct call with no argument takes this one.
   * @internal
   */
  [Symbol.asyncIterator](untyped?: never): AsyncIterableIterator<any>
  /** Iterates over the records: diffs, or snapshots with `emit: 'snapshots'`. */
  [Symbol.asyncIterator](): AsyncIterableIterator<R>
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
 * @group Streams
 */
export function createBlockParser<O extends BlockParserOptions = {}>(options?: O): BlockParser<Emitted<O>> {
  return new BlockParser<Emitted<O>>(options as BlockParserOptions & EmitOption<Emitted<O>>)
}

/**
 * A growing string value that is kept trimmed as it grows, without ever re-reading what it
 * already holds. The parser feeds raw pieces; `core` is the value so far (it only ever grows by
 * appending), `ws` is trailing white space that becomes part of the value only if more non-blank
 * text follows. `delta` collects what `core` gained since the last {@link Field.take}, which
 * lets the stream send `append` diffs without comparing long strings.
 *
 * With entity decoding, `core` holds decoded text and `held` a trailing raw fragment that the
 * next piece may complete into an entity (`&am`).
 * @internal
 * @module
 */
import { decodeEntities, partialEntityStart } from './entities.js'
import { flatten, Rope } from './rope.js'

/** A finished value up to this long is made flat (see {@link Field.value}). @internal */
export const FLAT_VALUE = 4096

/**
 * What {@link Field.mark} keeps.
 * @group Parsing
 */
export interface FieldMark {
  length: number
  ws: string
  held: string
  started: boolean
}

/**
 * `s.trimEnd()`, with the ASCII blanks that end most pieces (spaces, newlines) walked back here:
 * the builtin's call costs more than the walk on a streamed piece.
 */
function trimEnd(s: string): string {
  const e = bodyEnd(s)
  return e < 0 ? s.trimEnd() : e === s.length ? s : s.slice(0, e)
}

/**
 * Where a blank-ended ASCII piece's text ends without its trailing blanks (0: all blank), or -1
 * when a character past ASCII may be white space (the builtin trim decides those).
 */
function bodyEnd(s: string): number {
  let e = s.length
  while (e > 0) {
    const c = s.charCodeAt(e - 1)
    if (c === 32 || (c >= 9 && c <= 13)) e--
    else return c < 128 ? e : -1
  }
  return 0
}

/**
 * A growing value kept elsewhere, that an append may say it is a run of (a {@link Field}): its
 * value only ever grows by appending, so a run of it reads the same at any later time.
 * @internal
 */
export interface TextRun {
  /** The value's characters from `from` to `to`. */
  coreSlice(from: number, to: number): string
  /** The value's length so far. */
  readonly coreLength: number
}

export class Field implements TextRun {
  private readonly rope = new Rope()
  private ws = ''
  private held = ''
  private started = false
  private delta = ''
  /**
   * A run of `core` not copied into `rope` yet: `src.slice(lazyFrom, lazyFrom + lazyLen)`. A
   * stream's value is a contiguous part of the text the stream keeps anyway (`src`), so a piece
   * given with its offset (`pushAt`) only moves the run's end; the run is cut from `src` once,
   * when the value is read or a piece comes without an offset. With entity decoding, only text
   * without '&' joins a run (it decodes to itself).
   */
  private lazyFrom = 0
  private lazyLen = 0
  /**
   * Where `core` starts in `src` while all of it is one run of `src` (-1 otherwise): the usual
   * streamed value. `coreSlice` then cuts from `src`'s flat batches, as for the lazy run. Cut from
   * `rope` instead, a value that `materialize` copied in as one piece (a cons string of `src`'s
   * batches) was flattened whole by the first slice of it: a Presenter that read a 160 KB
   * `content` once it was complete copied all of it.
   */
  private srcAt = -1
  /** `value` as last read, with the core length and `held` it was read at. */
  private valueCache: string | null = null
  private valueLength = -1
  private valueHeld = ''

  constructor(private readonly decode = false, private readonly src: Rope | null = null) {}

  /**
   * Adds raw text that stands at `at` in `src` (the Rope given to the constructor), right after
   * the text of the previous piece. Same result as `push(piece)`.
   */
  pushAt(piece: string, at: number): void {
    // with entity decoding a run holds only text that decodes to itself: no '&', nothing held
    // (`started` compared with `true`: see DiffSession.push)
    if (this.src === null || (this.decode === true && (this.held.length > 0 || piece.indexOf('&') >= 0))) return this.push(piece)
    if (this.started !== true) {
      // the value's leading white space is dropped (as `push` does): the run starts after it
      const t = piece.trimStart()
      if (t.length === 0) return
      at += piece.length - t.length
      piece = t
      this.started = true
    }
    const e = bodyEnd(piece)
    if (e < 0) return this.push(piece)
    if (e === 0) {
      this.ws += piece
      return
    }
    // the deferred blanks stand right before the piece, and join the value with it
    const ws = this.ws
    const from = at - ws.length
    if (this.lazyLen === 0 || this.lazyFrom + this.lazyLen !== from) {
      this.materialize()
      const kept = this.rope.length
      if (kept === 0) this.srcAt = from
      else if (this.srcAt >= 0 && this.srcAt + kept !== from) this.srcAt = -1
      this.lazyFrom = from
    }
    this.lazyLen += ws.length + e
    const body = e === piece.length ? piece : piece.slice(0, e)
    const add = ws.length > 0 ? ws + body : body
    this.delta = this.delta.length === 0 ? add : this.delta + add
    this.ws = e === piece.length ? '' : piece.slice(e)
  }

  /** Copies the lazy run into `rope`: before anything reads or appends to it. */
  private materialize(): void {
    if (this.lazyLen === 0) return
    this.rope.push(this.src!.slice(this.lazyFrom, this.lazyFrom + this.lazyLen))
    this.lazyLen = 0
  }

  /** Adds raw text. Leading white space of the whole value is dropped, trailing is deferred. */
  push(piece: string): void {
    if (piece.length === 0) return
    if (this.lazyLen > 0) this.materialize()
    if (!this.started) {
      piece = piece.trimStart()
      if (piece.length === 0) return
      this.started = true
    }
    // most pieces end in a visible ASCII character: skip the trim and its copy
    const last = piece.charCodeAt(piece.length - 1)
    const visible = last > 32 && last < 127
    // (with entity decoding, a piece without '&' after nothing held decodes to itself)
    if (visible && this.ws.length === 0 && (!this.decode || (this.held.length === 0 && piece.indexOf('&') < 0))) {
      // the usual streamed piece: nothing deferred before it, nothing to hold back after it
      this.srcAt = -1
      this.rope.push(piece)
      this.delta = this.delta.length === 0 ? piece : this.delta + piece
      return
    }
    const body = visible ? piece : trimEnd(piece)
    if (body.length === 0) {
      // white space ends a held entity fragment for good: it is released as it is, as a parse
      // of the whole text at once releases it
      if (this.held.length > 0) {
        this.srcAt = -1
        this.rope.push(this.held)
        this.delta += this.held
        this.held = ''
      }
      this.ws += piece
      return
    }
    let add = this.ws.length > 0 ? this.ws + body : body
    this.ws = body.length === piece.length ? '' : piece.slice(body.length)
    if (this.decode) {
      if (this.held.length > 0) add = this.held + add
      const cut = this.ws.length > 0 ? add.length : partialEntityStart(add)
      this.held = add.slice(cut)
      add = decodeEntities(add.slice(0, cut))
    }
    this.srcAt = -1
    this.rope.push(add)
    this.delta += add
  }

  /**
   * The value of `raw so far + tail`, trimmed and decoded, returned as the part after `core`
   * (the value is `core + ext(tail)`). Used for text not yet resolved, and for `held`.
   */
  ext(tail: string, hideHeld = false): string {
    const held = hideHeld ? '' : this.held
    // (the local trimEnd and the tests for '' spare builtin calls: a stream asks after every
    // chunk that carries a cut tag)
    const t = tail.length > 0 ? trimEnd(tail) : ''
    if (t.length === 0) return held
    if (!this.started) return t.trimStart()
    const ws = this.ws
    if (held.length === 0) return ws.length === 0 ? t : ws + t
    return held + ws + t
  }

  /** The value so far without its rendering tail; it only ever grows by appending. */
  get core(): string {
    if (this.lazyLen > 0) this.materialize()
    return this.rope.value
  }

  /** `core.slice(from, to)`, cut from the Rope's batches without flattening `core`. */
  coreSlice(from: number, to: number): string {
    if (this.srcAt >= 0) {
      const at = this.srcAt
      return this.src!.slice(at + Math.max(from, 0), at + Math.min(to, this.rope.length + this.lazyLen))
    }
    const kept = this.rope.length
    if (this.lazyLen === 0 || to <= kept) return this.rope.slice(from, to)
    // the part in the lazy run is cut from `src`'s flat batches: materializing the run first and
    // cutting that (a cons string of the batches) would copy the whole run flat
    const end = Math.min(to, kept + this.lazyLen)
    const run = this.src!.slice(this.lazyFrom + Math.max(from - kept, 0), this.lazyFrom + end - kept)
    return from >= kept ? run : this.rope.slice(from, kept) + run
  }

  /** Length of `core`, without building it. */
  get coreLength(): number {
    return this.rope.length + this.lazyLen
  }

  /** White space after the value, kept in case more text follows. */
  get trailing(): string {
    return this.ws
  }

  /**
   * The value when no more text will come. The same string while the field does not change, so
   * that a reader can tell a block's value is this field's at once (`===` on one string object),
   * where comparing two strings made of pieces flattens both.
   */
  get value(): string {
    const n = this.coreLength
    if (this.valueCache === null || this.valueLength !== n || this.valueHeld !== this.held) {
      const v = this.core + this.held
      // a finished value stays in its block for the message's life: a short one cut from many
      // pieces of the text received (each a slice, joined by a node) can take several times its
      // length in memory; flat, it takes its length (a 20 MB message of short blocks, replayed in
      // 18-character chunks, kept 20 MB more live without this)
      this.valueCache = v.length <= FLAT_VALUE ? flatten(v) : v
      this.valueLength = n
      this.valueHeld = this.held
    }
    return this.valueCache
  }

  /**
   * `value` as last read, if the field has not changed since; null otherwise. Reads nothing: a
   * field's `core` copies its lazy run in when read, which a check of a block's value against
   * the field must not do on every chunk (done for each chunk of a 20 MB message, it kept a
   * second copy of the message).
   */
  get valueRead(): string | null {
    return this.valueCache !== null && this.valueLength === this.coreLength && this.valueHeld === this.held ? this.valueCache : null
  }

  /** The state that {@link Field.before} makes a new field of. */
  mark(): FieldMark {
    return { length: this.coreLength, ws: this.ws, held: this.held, started: this.started }
  }

  /**
   * A new field holding what this one held at `m`: text shown while a tag in a code span was
   * held is taken back when the tag opens its tool after all. A new object, not this one cut
   * back, since a stream may still read this one's `core` (it only ever grows).
   */
  before(m: FieldMark): Field {
    const f = new Field(this.decode, this.src)
    f.rope.reset(this.coreSlice(0, m.length))
    // (the same run of `src`, up to `m`)
    f.srcAt = this.srcAt
    f.ws = m.ws
    f.held = m.held
    f.started = m.started
    return f
  }

  /** What `core` gained since the previous call. */
  take(): string {
    const d = this.delta
    this.delta = ''
    return d
  }
}

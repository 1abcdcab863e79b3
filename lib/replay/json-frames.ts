/**
 * Reading one JSON value from stream-json's tokens (strings unpacked) without holding it whole:
 * frames that take the tokens of the value being read and pass it over, read a short scalar,
 * stream a string, walk an object's keys, or write the value back as JSON text. Nothing here is
 * specific to a log format; the Cline history reader is built on them.
 * @internal
 * @module
 */
import type { Token } from 'stream-json/core/parser.js'
import { describe } from './events.js'

/** Keys and short values are read up to this many characters (enough to describe them). */
export const SHORT = 64

/** A value just begun, described from its first token (its text, if any, comes later). */
export type ValueKind = 'object' | 'array' | 'string' | 'number' | 'null' | 'true' | 'false'

export function kindOf(t: Token): ValueKind | null {
  switch (t.name) {
    case 'startObject': return 'object'
    case 'startArray': return 'array'
    case 'startString': return 'string'
    case 'startNumber': return 'number'
    case 'nullValue': return 'null'
    case 'trueValue': return 'true'
    case 'falseValue': return 'false'
    default: return null
  }
}

/** A value as {@link describe} would tell it, from its kind and its first characters. */
export function describeValue(kind: ValueKind, text: string, cut: boolean): string {
  switch (kind) {
    case 'object': return 'an object'
    case 'array': return 'an array'
    case 'null': return 'null'
    case 'true': case 'false': return `boolean ${kind}`
    case 'number': return `number ${text}${cut ? '…' : ''}`
    case 'string': return cut ? `a string ${JSON.stringify(text.slice(0, 40))}…` : describe(text)
  }
}

/** Whoever takes the tokens of the value being read. */
export interface Frame {
  /** One token; returns whether the frame is done (the token was its last). */
  token(t: Token): boolean
}

/** Passes over one value, whatever it holds, without keeping any of it. */
export class SkipFrame implements Frame {
  private depth = 0
  private started = false

  token(t: Token): boolean {
    if (!this.started) {
      this.started = true
      if (t.name === 'startObject' || t.name === 'startArray') this.depth = 1
      return t.name === 'nullValue' || t.name === 'trueValue' || t.name === 'falseValue'
    }
    switch (t.name) {
      case 'startObject': case 'startArray': this.depth++; return false
      case 'endObject': case 'endArray': return --this.depth === 0
      case 'endString': case 'endNumber': return this.depth === 0
      default: return false
    }
  }
}

/**
 * Reads a scalar up to `limit` characters and hands it on with its kind; a longer string is cut
 * (`fail` false) or is an error (`fail` true, for text that must be kept whole until its part's
 * type is known). Objects and arrays are passed over and reported by kind alone.
 */
export class ScalarFrame implements Frame {
  private kind: ValueKind | null = null
  private text = ''
  private cut = false
  private skip: SkipFrame | null = null

  constructor(
    private readonly limit: number,
    private readonly fail: (() => never) | null,
    private readonly done: (kind: ValueKind, text: string, cut: boolean) => void,
  ) {}

  token(t: Token): boolean {
    if (this.skip !== null) return this.skip.token(t)
    if (this.kind === null) {
      this.kind = kindOf(t)
      if (this.kind === 'object' || this.kind === 'array') {
        this.done(this.kind, '', false)
        this.skip = new SkipFrame()
        return this.skip.token(t)
      }
      if (this.kind === 'string' || this.kind === 'number') return false
      this.done(this.kind!, '', false)
      return true
    }
    if (t.name === 'stringChunk' || t.name === 'numberChunk') {
      if (this.cut) return false
      if (this.text.length + t.value.length > this.limit) {
        if (this.fail !== null) this.fail()
        this.text += t.value.slice(0, this.limit - this.text.length)
        this.cut = true
      } else {
        this.text += t.value
      }
      return false
    }
    // endString / endNumber
    this.done(this.kind, this.text, this.cut)
    return true
  }
}

/** Streams a string value to `chunk` as it comes; anything else is described to `other`. */
export class TextFrame implements Frame {
  private started = false
  private instead: ScalarFrame | null = null

  constructor(
    private readonly begin: () => void,
    private readonly chunk: (s: string) => void,
    private readonly end: () => void,
    private readonly other: (description: string) => void,
  ) {}

  token(t: Token): boolean {
    if (this.instead !== null) return this.instead.token(t)
    if (!this.started) {
      this.started = true
      if (t.name === 'startString') {
        this.begin()
        return false
      }
      this.instead = new ScalarFrame(SHORT, null, (kind, text, cut) => this.other(describeValue(kind, text, cut)))
      return this.instead.token(t)
    }
    if (t.name === 'stringChunk') {
      this.chunk(t.value)
      return false
    }
    this.end()
    return true
  }
}

/** An object's keys, read (short) as they come; the value of each is handed to `value`. */
export abstract class ObjectFrame implements Frame {
  private started = false
  private key: string | null = null
  private keyText = ''

  token(t: Token): boolean {
    if (!this.started) {
      this.started = true
      return false // startObject
    }
    switch (t.name) {
      case 'startKey': this.keyText = ''; return false
      case 'stringChunk': if (this.keyText.length <= SHORT) this.keyText += t.value; return false
      case 'endKey': this.key = this.keyText; return false
      case 'endObject': this.end(); return true
      default: {
        const key = this.key!
        this.key = null
        this.value(key, t)
        return false
      }
    }
  }

  /** The first token of the value of `key`: push a frame for it (through the reader). */
  protected abstract value(key: string, first: Token): void
  /** The object is complete. */
  protected abstract end(): void
}

/**
 * Writes a JSON value back as JSON text from its tokens, piece by piece (strings escaped chunk by
 * chunk: a pair cut between two chunks becomes two `\u` escapes, which decode to the pair).
 */
export class JsonTextFrame implements Frame {
  /** Per open container: its next element is the first (no comma before it). */
  private readonly firsts: boolean[] = []
  private afterKey = false
  /** A high surrogate at the end of a string chunk, until the next chunk shows its pair. */
  private high = ''

  private flushHigh(): void {
    if (this.high.length > 0) this.out(JSON.stringify(this.high).slice(1, -1))
    this.high = ''
  }

  constructor(private readonly out: (s: string) => void, private readonly done: () => void = () => undefined) {}

  private sep(): void {
    if (this.afterKey) {
      this.afterKey = false
      return
    }
    const n = this.firsts.length
    if (n === 0) return
    if (this.firsts[n - 1]) this.firsts[n - 1] = false
    else this.out(',')
  }

  token(t: Token): boolean {
    const last = this.write(t)
    if (last) this.done()
    return last
  }

  /** Writes one token; returns whether it was the value's last. */
  private write(t: Token): boolean {
    switch (t.name) {
      case 'startObject': case 'startArray':
        this.sep()
        this.out(t.name === 'startObject' ? '{' : '[')
        this.firsts.push(true)
        return false
      case 'endObject': case 'endArray':
        this.firsts.pop()
        this.out(t.name === 'endObject' ? '}' : ']')
        return this.firsts.length === 0
      case 'startKey': case 'startString':
        this.sep()
        this.out('"')
        return false
      case 'stringChunk': {
        // a pair cut between two chunks is kept whole, so the text (and where the splitter
        // cuts it) does not depend on how the file was read
        let v = this.high + t.value
        this.high = ''
        const last = v.charCodeAt(v.length - 1)
        if (last >= 0xd800 && last <= 0xdbff) {
          this.high = v.slice(-1)
          v = v.slice(0, -1)
        }
        if (v.length > 0) this.out(JSON.stringify(v).slice(1, -1))
        return false
      }
      case 'endKey':
        this.flushHigh()
        this.out('":')
        this.afterKey = true
        return false
      case 'endString':
        this.flushHigh()
        this.out('"')
        return this.firsts.length === 0
      case 'startNumber':
        this.sep()
        return false
      case 'numberChunk':
        this.out(t.value)
        return false
      case 'endNumber':
        return this.firsts.length === 0
      case 'nullValue': case 'trueValue': case 'falseValue':
        this.sep()
        this.out(t.name === 'nullValue' ? 'null' : t.name === 'trueValue' ? 'true' : 'false')
        return this.firsts.length === 0
      default:
        return false
    }
  }
}

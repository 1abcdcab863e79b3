/**
 * Incremental assembly of one native tool call's arguments (SPEC 8a): the argument JSON arrives
 * in pieces (OpenAI `function.arguments`, Anthropic `input_json_delta`), and each top-level
 * value becomes a param as it is read: a string value streams (it grows as its characters
 * arrive), any other value appears once complete, as `JSON.stringify(JSON.parse(raw))`, which
 * is the original's conversion.
 *
 * A small hand-written tokenizer for the top-level object rather than stream-json's `parser()`:
 * only the outer object needs structure (nested values are kept raw and parsed once, whole), so
 * the state is a handful of fields; it runs inline, with no stream, token objects or callbacks
 * per token; and each character is looked at once, whatever the cut of the pieces, so the cost
 * is linear in the argument size. Escapes and surrogate pairs cut between two pieces are held
 * and decoded when the rest arrives.
 * @internal
 * @module
 */
import { Rope } from '../parse/rope.js'
import { setParam } from '../diff/validate.js'

/**
 * One change to the params, in the order it happened: `set` gives a param its whole value (its
 * first appearance, a complete non-string value, or a repeated key starting over); `append`
 * grows a string param.
 * @group Replay
 */
export type ArgumentOp =
  | { op: 'set'; name: string; value: string }
  | { op: 'append'; name: string; text: string }

/**
 * Receives the param changes as they happen: the same as {@link ArgumentOp}s, without an object
 * per change (a long value streamed in small pieces is one call per piece).
 * @group Replay
 */
export interface ArgumentSink {
  /** Param `name` has the whole value `value`. */
  set(name: string, value: string): void
  /** String param `name` grew by `text`. */
  append(name: string, text: string): void
}

/**
 * A sink that collects the changes as {@link ArgumentOp}s into `out`.
 * @group Replay
 */
export function collectOps(out: ArgumentOp[]): ArgumentSink {
  return {
    set: (name, value) => void out.push({ op: 'set', name, value }),
    append: (name, text) => void out.push({ op: 'append', name, text }),
  }
}

/**
 * Why the arguments are not usable, and where (UTF-16 offset in the argument text).
 * @group Replay
 */
export interface ArgumentProblem {
  /** For people. */
  message: string
  /** Offset in the call's argument text where the problem was seen. */
  offset: number
}

/** The one key never written as a param (the diff protocol refuses it; SPEC 9). */
const FORBIDDEN = '__proto__'

const enum Mode {
  Before, // white space, then `{`
  KeyOrEnd, // after `{`: a key or `}`
  Key, // inside a key string
  Colon,
  Value, // white space, then a value
  Str, // inside a string value
  Raw, // inside any other value
  AfterValue, // `,` or `}`
  KeyOnly, // after `,`: a key (no trailing comma in JSON)
  Done, // after the closing `}`: white space only
  Invalid,
}

/** JSON white space. */
function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30
  if (c >= 0x61 && c <= 0x66) return c - 0x57
  if (c >= 0x41 && c <= 0x46) return c - 0x37
  return -1
}

const SIMPLE_ESCAPES: Record<number, string> = {
  0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t',
}

function describeChar(c: number): string {
  return c < 0x20 || c === 0x7f ? `U+${c.toString(16).toUpperCase().padStart(4, '0')}` : JSON.stringify(String.fromCharCode(c))
}

/**
 * Reads one call's argument JSON piece by piece. `push` returns nothing: the param changes go
 * to the `out` sink given, at most one change per param per piece (a param that appears in a
 * piece: one `set` with its text so far).
 * @internal
 * @group Replay
 */
export class ArgumentAssembler {
  private mode = Mode.Before
  /** UTF-16 units read so far: diagnostics' offsets. */
  private offset = 0
  private readonly values = new Map<string, Rope>()
  /** Names in the order of first appearance (the order of `JSON.parse`'s object). */
  private readonly order: string[] = []
  private problemFound: ArgumentProblem | undefined
  /** Names dropped (`__proto__`), with the offset of their key. */
  readonly ignored: { name: string; offset: number }[] = []

  // string decoding, shared by keys and string values
  /** 0: none; 1: after `\`; 2..5: in `\u`, that many hex digits still to read + 1 */
  private esc = 0
  private hex = 0
  /** A high surrogate held back from the end of a piece until we know what follows it. */
  private high = ''

  // the current key and value
  private key = ''
  /** The value being read belongs to a param (not `__proto__`). */
  private keep = true
  /** Offset of the current key's opening quote. */
  private keyAt = 0
  private raw: string[] = []
  private rawDepth = 0
  private rawInStr = false
  private rawEsc = false

  // the changes of the current piece
  private out: ArgumentSink = collectOps([])
  /** The current string param appeared in this piece: its first change is a `set`. */
  private setPending = false
  /** Param whose `append` is being gathered in `pending` for the current piece. */
  private pendingName: string | null = null
  private pending = ''
  /** The last UTF-16 unit added to `pending` (read without flattening it). */
  private lastUnit = 0
  /** The rope of the string param being read. */
  private rope: Rope | null = null

  /** Whether the top-level object was closed (and nothing but white space followed, so far). */
  get complete(): boolean {
    return this.mode === Mode.Done
  }

  /** The first syntax problem met (after which the rest is not read), if any. */
  get problem(): ArgumentProblem | undefined {
    return this.problemFound
  }

  /** UTF-16 length of the argument text read. */
  get length(): number {
    return this.offset
  }

  /** The params so far: own data properties, in order of first appearance. */
  params(): Record<string, string> {
    const p: Record<string, string> = {}
    for (const name of this.order) setParam(p, name, this.values.get(name)!.value)
    return p
  }

  /** Reads `text`; its param changes go to `out`. */
  push(text: string, out: ArgumentSink): void {
    if (text.length === 0) return
    this.out = out
    if (this.mode !== Mode.Invalid) this.scan(text)
    this.flush()
    this.offset += text.length
  }

  /**
   * The argument text is over. Returns the problem that makes the arguments unusable (not a
   * complete JSON object), or `undefined`. With `emptyIsObject`, no text at all (or only white
   * space) means no arguments, as the original reads an empty argument string: a provider's
   * call to a tool without parameters.
   */
  end(emptyIsObject: boolean): ArgumentProblem | undefined {
    if (this.high.length > 0) {
      // a cut right after a high surrogate: the params so far keep it
      this.rope!.push(this.high)
      this.high = ''
    }
    if (this.problemFound !== undefined) return this.problemFound
    if (this.mode === Mode.Done) return undefined
    if (this.mode === Mode.Before && emptyIsObject) {
      this.mode = Mode.Done
      return undefined
    }
    return {
      // any text but white space leaves Before (or fails): still there, none arrived
      message: this.mode === Mode.Before ? 'the call ended before any argument text arrived' : 'the arguments ended before their JSON object was complete',
      offset: this.offset,
    }
  }

  /** A method, not an inline test, so TypeScript does not narrow `mode` across the calls that change it. */
  private get failed(): boolean {
    return this.mode === Mode.Invalid
  }

  private fail(message: string, at: number): void {
    this.problemFound = { message, offset: this.offset + at }
    this.mode = Mode.Invalid
  }

  /** Hands the text gathered for the current string param to its rope and to `out`. */
  private flush(): void {
    const name = this.pendingName
    if (name !== null) {
      if (this.pending.length > 0) this.rope!.push(this.pending)
      // a param that appeared in this very piece: one `set` with its text so far
      if (this.setPending) this.out.set(name, this.pending)
      else if (this.pending.length > 0) this.out.append(name, this.pending)
    }
    this.setPending = false
    this.pendingName = null
    this.pending = ''
  }

  /** Adds decoded text to the current key, or to the current string value. */
  private emit(s: string): void {
    if (this.mode === Mode.Key) {
      this.key += s
      return
    }
    if (!this.keep) return
    this.pendingName = this.key
    this.pending = this.pending.length === 0 ? s : this.pending + s
    this.lastUnit = s.charCodeAt(s.length - 1)
  }

  /**
   * Param `name` gets a value: a string value starts empty (its `set` waits for the text of
   * this piece), any other value is whole.
   */
  private startValue(name: string, value: string, isString: boolean): void {
    if (!this.keep) return
    this.flush()
    let rope = this.values.get(name)
    if (rope === undefined) {
      this.values.set(name, (rope = new Rope(value)))
      this.order.push(name)
    } else {
      rope.reset(value) // a repeated key: JSON.parse keeps the last value, at the first place
    }
    this.rope = rope
    if (isString) {
      this.setPending = true
      this.pendingName = name
    } else {
      this.out.set(name, value)
    }
  }

  private scan(s: string): void {
    const n = s.length
    let i = 0
    while (i < n) {
      switch (this.mode) {
        case Mode.Before:
        case Mode.KeyOrEnd:
        case Mode.Colon:
        case Mode.Value:
        case Mode.AfterValue:
        case Mode.KeyOnly:
        case Mode.Done: {
          const c = s.charCodeAt(i)
          if (isWs(c)) {
            i++
            continue
          }
          i = this.structural(c, i)
          if (this.failed) return
          continue
        }
        case Mode.Key:
        case Mode.Str:
          i = this.string(s, i)
          if (this.failed) return
          continue
        case Mode.Raw:
          i = this.rawValue(s, i)
          if (this.failed) return
          continue
        default:
          return
      }
    }
    // a high surrogate at the very end of a piece waits for the next one: each append stays
    // well-formed UTF-16 when the value is (a UI never shows half of a pair)
    if (this.mode === Mode.Str && this.pending.length > 0) {
      const last = this.lastUnit
      if (last >= 0xd800 && last <= 0xdbff) {
        this.pending = this.pending.slice(0, -1)
        this.high = String.fromCharCode(last)
      }
    }
  }

  /** One structural character `c` at `i`; returns the next index. */
  private structural(c: number, i: number): number {
    switch (this.mode) {
      case Mode.Before:
        if (c !== 0x7b) {
          this.fail(`the arguments are not a JSON object (they start with ${describeChar(c)})`, i)
          return i
        }
        this.mode = Mode.KeyOrEnd
        return i + 1
      case Mode.KeyOrEnd:
      case Mode.KeyOnly:
        if (c === 0x7d && this.mode === Mode.KeyOrEnd) {
          this.mode = Mode.Done
          return i + 1
        }
        if (c !== 0x22) {
          this.fail(`expected a key string, got ${describeChar(c)}`, i)
          return i
        }
        this.mode = Mode.Key
        this.key = ''
        this.keyAt = this.offset + i
        return i + 1
      case Mode.Colon:
        if (c !== 0x3a) {
          this.fail(`expected ':' after the key, got ${describeChar(c)}`, i)
          return i
        }
        this.keep = this.key !== FORBIDDEN
        if (!this.keep) this.ignored.push({ name: this.key, offset: this.keyAt })
        this.mode = Mode.Value
        return i + 1
      case Mode.Value:
        if (c === 0x22) {
          this.mode = Mode.Str
          this.startValue(this.key, '', true)
          return i + 1
        }
        this.mode = Mode.Raw
        this.rawInStr = false
        this.rawEsc = false
        if (c === 0x7b || c === 0x5b) {
          this.rawDepth = 1
          this.raw = [String.fromCharCode(c)]
          return i + 1
        }
        this.rawDepth = 0 // a scalar
        this.raw = []
        return i
      case Mode.AfterValue:
        if (c === 0x2c) {
          this.mode = Mode.KeyOnly
          return i + 1
        }
        if (c === 0x7d) {
          this.mode = Mode.Done
          return i + 1
        }
        this.fail(`expected ',' or '}' after a value, got ${describeChar(c)}`, i)
        return i
      default: // Done
        this.fail(`unexpected ${describeChar(c)} after the arguments object`, i)
        return i
    }
  }

  /** Reads string characters (a key or a value) from `i`; returns the next index. */
  private string(s: string, i: number): number {
    const n = s.length
    if (this.high.length > 0) {
      // what follows a held high surrogate decides nothing about it: it goes out first
      const h = this.high
      this.high = ''
      this.emit(h)
    }
    while (i < n) {
      if (this.esc === 1) {
        const c = s.charCodeAt(i)
        if (c === 0x75) {
          this.esc = 5
          this.hex = 0
          i++
          continue
        }
        const simple = SIMPLE_ESCAPES[c]
        if (simple === undefined) {
          this.fail(`bad escape \\${String.fromCharCode(c)} in a string`, i)
          return i
        }
        this.esc = 0
        this.emit(simple)
        i++
        continue
      }
      if (this.esc > 1) {
        const v = hexValue(s.charCodeAt(i))
        if (v < 0) {
          this.fail('bad \\u escape in a string (expected 4 hex digits)', i)
          return i
        }
        this.hex = this.hex * 16 + v
        i++
        if (--this.esc === 1) {
          this.esc = 0
          this.emit(String.fromCharCode(this.hex))
        }
        continue
      }
      let j = i
      let c = 0
      while (j < n) {
        c = s.charCodeAt(j)
        if (c === 0x22 || c === 0x5c || c < 0x20) break
        j++
      }
      if (j > i) this.emit(i === 0 && j === n ? s : s.slice(i, j))
      if (j === n) return n
      if (c === 0x5c) {
        this.esc = 1
        i = j + 1
        continue
      }
      if (c === 0x22) {
        if (this.mode === Mode.Key) {
          this.mode = Mode.Colon
        } else {
          this.mode = Mode.AfterValue
          this.flush()
        }
        return j + 1
      }
      this.fail(`a raw control character ${describeChar(c)} in a string (JSON needs it escaped)`, j)
      return j
    }
    return n
  }

  /** Reads a non-string value from `i`; returns the next index. */
  private rawValue(s: string, i: number): number {
    const n = s.length
    const start = i
    let j = i
    let ended = false
    let endAt = n // first index after the value
    if (this.rawDepth === 0) {
      // a scalar: it ends at the first delimiter; JSON.parse judges what it is
      for (; j < n; j++) {
        const c = s.charCodeAt(j)
        if (c === 0x2c || c === 0x7d || isWs(c)) {
          ended = true
          endAt = j
          break
        }
      }
    } else {
      for (; j < n; j++) {
        const c = s.charCodeAt(j)
        if (this.rawInStr) {
          if (this.rawEsc) this.rawEsc = false
          else if (c === 0x5c) this.rawEsc = true
          else if (c === 0x22) this.rawInStr = false
        } else if (c === 0x22) {
          this.rawInStr = true
        } else if (c === 0x7b || c === 0x5b) {
          this.rawDepth++
        } else if (c === 0x7d || c === 0x5d) {
          if (--this.rawDepth === 0) {
            ended = true
            endAt = j + 1
            break
          }
        }
      }
    }
    if (endAt > start) this.raw.push(start === 0 && endAt === n ? s : s.slice(start, endAt))
    if (!ended) return n
    const text = this.raw.join('')
    this.raw = []
    let value: string
    try {
      // the original's conversion; a dropped (`__proto__`) value is still checked
      value = JSON.stringify(JSON.parse(text))
    } catch {
      this.fail(`the value of ${JSON.stringify(this.key)} is not valid JSON`, endAt)
      return endAt
    }
    this.startValue(this.key, value, false)
    this.mode = Mode.AfterValue
    return endAt
  }
}

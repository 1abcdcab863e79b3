/**
 * Greedy parameters (SPEC 3.5): write_to_file's `content` runs from the first opening tag to the
 * last closing tag of the tool's body, so a file that contains `</content>` is not cut short.
 * The final rule, and the streaming view of it (`greedyWhileStreaming`).
 * @internal
 * @module
 */
import { intern } from './intern.js'
import { Field } from './field.js'
import { decodeEntities } from './entities.js'
import type { Rope } from './rope.js'

/**
 * What a tool with greedy params keeps of its body for the final rule (see ToolBody).
 * @group Parsing
 */
export interface GreedyBody {
  /** Raw text of the tool's body so far, kept only for tools with greedy params. */
  body: Rope | null
  /** Body offsets of the value of each param, as last closed by rule 4. */
  spans: Record<string, [number, number]>
  /** Length of the whole body so far, whether or not all of it is kept. */
  bodyLength: number
  /** Inside the first greedy param, whose value its Field holds. */
  skipping: boolean
  /** That value, raw but for leading white space, once it closed. */
  firstRaw: string | null
  /** The body from that param's first closing tag on. */
  after: Rope | null
}

/**
 * `greedyWhileStreaming`: a greedy param's value while its tool is open is all text after the
 * first opening tag, holding back only what may turn out to be the end (a last closing tag
 * followed by white space and the start of the tool's closing tag, or a cut closing tag), so
 * every streamed value is a prefix of the final one.
 * @group Parsing
 */
export class GreedyView {
  readonly field: Field
  readonly path: string
  private readonly open: string
  private readonly close: string
  private started = false
  private scan = ''
  /** Text held back: empty, a cut closing tag, or a closing tag that may be the last (`atClose`). */
  private tail = ''
  /**
   * The tail is a closing tag, blanks, then `frag` (a prefix of the tool's closing tag, with no
   * white space). Kept apart so a chunk is checked against `frag` only: rescanning the whole
   * tail made a model looping on newlines after `</content>` cost quadratic time.
   */
  private atClose = false
  private frag = ''

  constructor(readonly name: string, private readonly toolClose: string, decode: boolean, src: Rope | null = null) {
    this.open = '<' + name + '>'
    this.close = '</' + name + '>'
    this.path = intern('params.' + name)
    this.field = new Field(decode, src)
  }

  get active(): boolean {
    return this.started
  }

  /** The rendering after `field.core`: held back (null), or released with `extra` raw text. */
  ext(extra: string | null, hideHeld: boolean): string {
    return extra === null ? this.field.ext('', hideHeld) : this.field.ext(this.tail + extra)
  }

  /** The body grew by `piece`, which stands at `at` in the text (-1: unknown). */
  push(piece: string, at = -1): void {
    if (!this.started) {
      const s = this.scan + piece
      const i = s.indexOf(this.open)
      if (i < 0) {
        this.scan = s.slice(-(this.open.length - 1))
        return
      }
      if (at >= 0) at += i + this.open.length - this.scan.length
      this.started = true
      this.scan = ''
      piece = s.slice(i + this.open.length)
    }
    if (this.atClose) {
      // a later closing tag can only start in `frag` (blanks hold no '<'), so `frag + piece` is
      // all that needs a look; while none comes, the tail stays held if what follows the closing
      // tag still reads as blanks and the start of the tool's closing tag
      const rest = this.frag + piece
      if (rest.indexOf(this.close) < 0) {
        const next = this.frag.length > 0 ? rest : piece.trimStart()
        if (this.toolClose.startsWith(next)) {
          this.tail += piece
          this.frag = next
          return
        }
      }
    }
    const s = this.tail.length > 0 ? this.tail + piece : piece
    // only the part after the held closing tag's own can hold a later one (see above)
    const from = this.atClose ? s.length - this.frag.length - piece.length : 0
    let hold = s.length
    this.atClose = false
    this.frag = ''
    // the last closing tag, found forwards: V8's indexOf is several times faster than lastIndexOf
    let c = -1
    for (let i = s.indexOf(this.close, from); i >= 0; i = s.indexOf(this.close, i + 1)) c = i
    if (c >= 0) {
      const frag = s.slice(c + this.close.length).trimStart()
      if (this.toolClose.startsWith(frag)) {
        hold = c
        this.atClose = true
        this.frag = frag
      }
    }
    if (hold === s.length) {
      // a cut closing tag starts within its length of the end
      const l = s.indexOf('<', Math.max(from, s.length - this.close.length + 1))
      let last = -1
      for (let k = l; k >= 0; k = s.indexOf('<', k + 1)) last = k
      if (last >= 0 && this.close.startsWith(s.slice(last))) hold = last
    }
    // s is the held tail and the piece, which stand together in the text
    const value = hold === s.length ? s : s.slice(0, hold)
    if (at >= 0) this.field.pushAt(value, at - this.tail.length)
    else this.field.push(value)
    this.tail = hold === s.length ? '' : s.slice(hold)
  }
}

/**
 * SPEC 3.5: the value runs from the first opening tag to the last closing tag of the body.
 * @group Parsing
 */
export function applyGreedy(tool: GreedyBody, params: Record<string, string>, names: readonly string[], decode: boolean): void {
  if (tool.firstRaw !== null) {
    // ToolBody's `after` path: one greedy param, its first opening tag the first of the body
    const name = names[0]!
    const after = tool.after!.value
    const end = after.lastIndexOf('</' + name + '>')
    if (end > 0) params[name] = (tool.firstRaw + after.slice(0, end)).trim()
    return
  }
  const body = tool.body!.value
  for (const name of names) {
    const open = '<' + name + '>'
    const start = body.indexOf(open)
    if (start < 0) continue
    const end = body.lastIndexOf('</' + name + '>')
    if (end <= start) continue
    const span = tool.spans[name]
    // the usual case: rule 4 already cut the value at that very tag; keep the same string, so
    // nobody has to compare a long value with itself
    if (span !== undefined && span[0] === start + open.length && span[1] === end) continue
    const v = body.slice(start + open.length, end).trim()
    params[name] = decode ? decodeEntities(v) : v
  }
}


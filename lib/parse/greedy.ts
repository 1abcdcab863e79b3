/**
 * Greedy parameters (SPEC 3.5): write_to_file's `content` runs from the first opening tag to the
 * last closing tag of the tool's body, so a file that contains `</content>` is not cut short.
 * The final rule, and the streaming view of it (`greedyWhileStreaming`).
 * @internal
 * @module
 */
import { Field } from './field.js'
import { decodeEntities } from './entities.js'
import type { Rope } from './rope.js'

/** What a tool with greedy params keeps of its body for the final rule (see Engine.bodyTo). */
export interface GreedyBody {
  params: Record<string, string>
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
 */
export class GreedyView {
  readonly field: Field
  readonly path: string
  private readonly open: string
  private readonly close: string
  private started = false
  private scan = ''
  private tail = ''

  constructor(readonly name: string, private readonly toolClose: string, decode: boolean) {
    this.open = '<' + name + '>'
    this.close = '</' + name + '>'
    this.path = 'params.' + name
    this.field = new Field(decode)
  }

  get active(): boolean {
    return this.started
  }

  /** The rendering after `field.core`: held back (null), or released with `extra` raw text. */
  ext(extra: string | null, hideHeld: boolean): string {
    return extra === null ? this.field.ext('', hideHeld) : this.field.ext(this.tail + extra)
  }

  push(piece: string): void {
    if (!this.started) {
      const s = this.scan + piece
      const i = s.indexOf(this.open)
      if (i < 0) {
        this.scan = s.slice(-(this.open.length - 1))
        return
      }
      this.started = true
      this.scan = ''
      piece = s.slice(i + this.open.length)
    }
    const s = this.tail.length > 0 ? this.tail + piece : piece
    let hold = s.length
    // the last closing tag, found forwards: V8's indexOf is several times faster than lastIndexOf
    let c = -1
    for (let i = s.indexOf(this.close); i >= 0; i = s.indexOf(this.close, i + 1)) c = i
    if (c >= 0 && this.toolClose.startsWith(s.slice(c + this.close.length).trimStart())) hold = c
    if (hold === s.length) {
      const l = s.lastIndexOf('<')
      if (l >= 0 && s.length - l < this.close.length && this.close.startsWith(s.slice(l))) hold = l
    }
    this.field.push(s.slice(0, hold))
    this.tail = s.slice(hold)
  }
}

/** SPEC 3.5: the value runs from the first opening tag to the last closing tag of the body. */
export function applyGreedy(tool: GreedyBody, names: readonly string[], decode: boolean): void {
  if (tool.firstRaw !== null) {
    // the short path of bodyTo: one greedy param, its first opening tag the first of the body
    const name = names[0]!
    const after = tool.after!.value
    const end = after.lastIndexOf('</' + name + '>')
    if (end > 0) tool.params[name] = (tool.firstRaw + after.slice(0, end)).trim()
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
    tool.params[name] = decode ? decodeEntities(v) : v
  }
}


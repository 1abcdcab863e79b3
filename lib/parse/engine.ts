/**
 * The parser's state machine, the exact rules of SPEC 3: four modes (text, tool, param and
 * reasoning), fed chunk by chunk. One engine serves both the pure `parseAssistantMessage` (feed
 * the whole text once) and the BlockParser (feed each chunk as it comes): it never re-reads text
 * it has decided, so streaming costs O(new text) per chunk.
 *
 * Text and tool mode jump from tag to tag (text mode by indexOf of '<' and a table of the tags'
 * first characters, or the dialect's tag regex in '<'-dense text; tool mode by that regex: tags.ts);
 * param mode searches for its closing tag (exact-scan.ts). A tag cut by the end of the input can only start
 * among the window's last characters: it is kept aside (`carry`) and read again with the next
 * chunk. Completed blocks are frozen and never touched again (SPEC 3.8); the one open block is
 * rendered on demand (`render.ts`).
 *
 * The robust options are stages beside it, entered only when their option is on: `tag-reader.ts`
 * (text and tool mode with lenientTags or diagnostics), `fences.ts` (codeFences: text mode),
 * `lenient.ts` (lenient names and closing tags), `diagnostics.ts`, and `greedy-body.ts` (what a
 * greedy tool keeps of its body, and the greedy views).
 * @internal
 * @module
 */
import type { Block, Diagnostic } from '../types.js'
import { resolveOptions, type ResolvedOptions } from './options.js'
import { Field } from './field.js'
import { intern } from './intern.js'
import type { Rope } from './rope.js'
import { exactTagAt, nextExactTag, tables, type TagSet } from './tags.js'
import { closeFree, cutAt, findClose } from './exact-scan.js'
import { ToolBody } from './greedy-body.js'
import type { GreedyView } from './greedy.js'
import { FenceScanner } from './fences.js'
import { TagReader } from './tag-reader.js'
import { Diagnostics } from './diagnostics.js'
import { closeNameRegex, lenientCloseFree, scanCloseLenient } from './lenient.js'
import { growingFields, openField, render, toolBlock, type OpenField } from './render.js'

/** The modes of SPEC 3 (reasoning is the `reasoningTags` option's). */
export const enum Mode { Text, Tool, Param, Reasoning }

/** The open tool call. */
export interface ToolState {
  name: string
  call_id: string
  params: Record<string, string>
  /** Its closing tag's inside, `/name`. */
  close: string
  /** Only for a tool with greedy params (SPEC 3.5). */
  body: ToolBody | null
  /** Its greedy views (`greedyWhileStreaming`), or none. */
  views: readonly GreedyView[]
}

const NO_VIEWS: readonly GreedyView[] = []

/*
 * Fields without `private` are the state that the stages beside the engine read (render.ts,
 * tag-reader.ts, fences.ts); the engine alone owns and writes them, except `text`, which the
 * fence scanner cuts back when a held tag opens after all, and `closeAt`, which the lenient close
 * scan sets.
 */
export class Engine {
  readonly done: Block[] = []
  readonly diagnostics: Diagnostic[] = []
  mode: Mode = Mode.Text
  /** Changes whenever the open block changes shape (mode, param, view), so a stream knows when only the open field grew. */
  shape = 0
  /** Raw text after the last decided position: a tag candidate cut by the end of the input. */
  carry = ''
  /** Offset in the whole text of the first character of `carry`. */
  private pos = 0
  text: Field
  tool: ToolState | null = null
  paramName = ''
  /** Made once per param, not per chunk: they are compared and searched on every chunk. */
  private paramClose = ''
  paramPath = ''
  param: Field | null = null
  /** Where the last closing tag of a param was found in the window (for greedy tools). */
  closeAt = 0
  private reasoningClose = ''
  reasoning: Field | null = null
  ended = false

  readonly textTags: TagSet
  private readonly toolTags: TagSet
  private readonly tools: Set<string>
  readonly params: Set<string>
  private readonly greedy: Readonly<Record<string, readonly string[]>>
  /** Longest name + 1 in text and tool mode, for the exact scanner. */
  private readonly textMax: number
  private readonly toolMax: number
  private readonly lenient: boolean
  /** Exact scanners only and no entity decoding: the condition of `takesWhole`. */
  private readonly plain: boolean
  /** The text fed so far, kept by the caller: the values may be runs of it (constructor). */
  private readonly src: Rope | null
  private readonly closeNames: Map<string, RegExp>
  /**
   * The open param's or reasoning tag's closeNameRegex (both profiles search long values with
   * it), looked up once when it opens by the name its tag set already hashed, not on every chunk.
   */
  private closeRe = /(?!)/g
  /** The robust stages, null when their options are off. */
  private readonly reader: TagReader | null
  private readonly fences: FenceScanner | null
  readonly diag: Diagnostics | null

  /**
   * `source`: the Rope where the caller keeps everything fed, in order (a stream does); with the
   * exact scanners the open values then stay runs of it until read (`Field.pushAt`), rather than a
   * second copy of the text.
   */
  constructor(readonly o: ResolvedOptions, source: Rope | null = null) {
    const t = tables(o.dialect, o.reasoningTags)
    this.tools = t.tools
    this.params = t.params
    this.textTags = t.textTags
    this.toolTags = t.toolTags
    this.textMax = t.textTags.maxInner + 1
    this.toolMax = t.toolTags.maxInner + 1
    this.greedy = o.dialect.greedy
    this.lenient = o.lenientTags
    this.closeNames = t.closeNames
    this.reader = o.lenientTags || o.diagnostics || o.codeFences ? new TagReader(o.lenientTags, o.diagnostics, t.textTags, t.toolTags) : null
    this.fences = o.codeFences ? new FenceScanner(this.reader!) : null
    this.plain = this.reader === null && !o.lenientTags && !o.decodeEntities
    this.src = source
    this.text = this.newField()
    this.diag = o.diagnostics ? new Diagnostics(this.diagnostics, o.maxDiagnostics, t.tools, t.params, t.unknownCache) : null
  }

  /** Feeds more text. */
  feed(chunk: string): void {
    if (chunk.length === 0) return
    let w = this.carry.length > 0 ? this.carry + chunk : chunk
    let base = this.pos
    this.carry = ''
    let p = 0
    const fences = this.fences
    const reader = this.reader
    if (fences !== null) fences.newWindow()
    if (reader !== null) reader.newWindow()
    const body = this.tool === null ? null : this.tool.body
    if (body !== null) body.from = body.viewFrom = 0
    let n = w.length
    while (p < n) {
      switch (this.mode) {
        case Mode.Text: {
          const r = fences !== null ? fences.scan(this, w, p, base) : reader !== null ? reader.scanText(this, w, p, base) : this.scanText(w, p, base)
          if (r < 0) {
            if (fences === null || fences.restart === null) return this.keep(w, base, ~r)
            // a tag held in a code span of an earlier window opens its tool after all: read on
            // from it, in a window that starts there
            w = fences.restart
            base = fences.heldFrom
            fences.restart = null
            fences.newWindow()
            reader!.newWindow()
            n = w.length
            p = 0
            break
          }
          p = r
          const opened = this.tool === null ? null : this.tool.body
          if (opened !== null) opened.from = opened.viewFrom = p
          break
        }
        case Mode.Tool: {
          const r = reader !== null ? reader.scanTool(this, w, p, base) : this.scanTool(w, p)
          if (r < 0) return this.keep(w, base, ~r)
          p = r
          break
        }
        case Mode.Param: {
          const r = this.scanClose(w, p, base, this.paramClose, this.param!)
          if (r < 0) return this.keep(w, base, ~r)
          const tool = this.tool!
          tool.params[this.paramName] = this.param!.value
          if (tool.body !== null) tool.body.closeParam(w, this.closeAt, this.paramName, this.param!)
          this.param = null
          this.setMode(Mode.Tool)
          p = r
          break
        }
        case Mode.Reasoning: {
          const r = this.scanClose(w, p, base, this.reasoningClose, this.reasoning!)
          if (r < 0) return this.keep(w, base, ~r)
          const content = this.reasoning!.value
          if (content.length > 0) this.done.push({ type: 'reasoning', reasoning: content, partial: false })
          this.reasoning = null
          this.setMode(Mode.Text)
          if (fences !== null) fences.bol = false
          p = r
          break
        }
      }
    }
    this.keep(w, base, n)
  }

  /**
   * Is `chunk` the usual streamed chunk, which `feed` would only add, whole, to the open text,
   * param or reasoning value whose stream rendering is `field` (the value itself, or a param's
   * greedy view)? No tag in it, none cut at its end, nothing carried from before; decided by the
   * same searches `feed` runs. With the exact scanners and no entity decoding in every mode; with
   * any option in a param or reasoning, where a chunk without '<' holds no closing tag, whole or
   * cut (and, in a param whose entities are decoded and a held fragment would show, no '&').
   * Pure: then `grow`.
   */
  takesWhole(chunk: string, field: Field): boolean {
    if (this.carry.length !== 0 || chunk.length === 0) return false
    if (this.plain !== true) {
      const first = chunk.indexOf('<')
      if (first >= 0) {
        // in a value, a '<' that starts no closing tag of it (whole or cut) is text as any other
        if (this.mode !== Mode.Param && this.mode !== Mode.Reasoning) return false
        const close = this.mode === Mode.Param ? this.paramClose : this.reasoningClose
        if (!(this.lenient ? lenientCloseFree(chunk, first, close) : closeFree(chunk, first, close))) return false
      }
      if (this.mode === Mode.Reasoning) return field === this.reasoning
      return this.mode === Mode.Param && this.showsParam(field) && (!this.o.decodeEntities || this.o.hidePartialTags || chunk.indexOf('&') < 0)
    }
    // the searches from the chunk's first '<', found once
    switch (this.mode) {
      case Mode.Text: {
        if (field !== this.text) return false
        const first = chunk.indexOf('<')
        return first < 0 || (nextExactTag(this.textTags, chunk, 0, first) < 0 && cutAt(chunk, first, this.textTags.prefixes, this.textMax) < 0)
      }
      case Mode.Param: {
        if (field !== this.param && !this.showsParam(field)) return false
        const first = chunk.indexOf('<')
        return first < 0 || closeFree(chunk, first, this.paramClose)
      }
      case Mode.Reasoning: {
        if (field !== this.reasoning) return false
        const first = chunk.indexOf('<')
        return first < 0 || closeFree(chunk, first, this.reasoningClose)
      }
      default:
        return false
    }
  }

  /** Is `field` what a stream shows growing in the open param: its value, or its greedy view? */
  private showsParam(field: Field): boolean {
    if (field === this.param) return true
    for (const v of this.tool!.views) if (v.active && v.field === field) return v.name === this.paramName
    return false
  }

  /** Feeds a chunk that `takesWhole` accepted: what `feed` does with it, by a shorter path. */
  grow(chunk: string): void {
    const field = this.mode === Mode.Text ? this.text : this.mode === Mode.Param ? this.param! : this.reasoning!
    const at = this.pos
    field.pushAt(chunk, at)
    const body = this.tool === null ? null : this.tool.body
    // the chunk is the whole window and leaves nothing to carry: what keep does, unless a tool
    // body must look at it (a skipped greedy value only counts it)
    if (body === null || body.skipWhole(chunk.length) === true) {
      this.pos = at + chunk.length
      return
    }
    body.from = body.viewFrom = 0
    this.keep(chunk, at, chunk.length)
  }

  /** Ends the window: everything before `cut` is decided, the rest is carried to the next feed. */
  private keep(w: string, base: number, cut: number): void {
    const tool = this.tool
    if (tool !== null && tool.body !== null && tool.body.endWindow(w, cut, base)) this.shape++
    this.carry = cut < w.length ? w.slice(cut) : ''
    this.pos = base + cut
  }

  /**
   * Could `raw`, the text after a '<' cut by the end of the input, still become a tag of `tags`?
   * `named`: only if it already has a character of a name.
   */
  cutTag(raw: string, tags: TagSet, named: boolean): boolean {
    // `named` comes only from endDiagnostics, and diagnostics always have a reader
    if (this.reader !== null) return this.reader.cut(raw, tags, named)
    return tags.prefixes.has(raw)
  }

  /**
   * Text mode (SPEC 3.2): an opening tool tag closes the text and opens the tool; everything
   * else is text. Returns where the next mode starts, or ~cut when the window is used up.
   */
  private scanText(w: string, p: number, base: number): number {
    const tags = this.textTags
    const s = nextExactTag(tags, w, p)
    if (s < 0) {
      const n = w.length
      const cut = this.ended ? -1 : cutAt(w, p, tags.prefixes, this.textMax)
      const to = cut < 0 ? n : cut
      this.text.pushAt(p === 0 && to === n ? w : w.slice(p, to), base + p)
      return ~to
    }
    const name = exactTagAt(tags, w, s)!
    this.text.pushAt(w.slice(p, s), base + p)
    this.openTag(name)
    return s + name.length + 2
  }

  /** A field for a value of this engine's text (runs of `src` where it may); only params decode entities. */
  private newField(decode = false): Field {
    return new Field(decode, this.src)
  }

  /** Opens a tool or reasoning block after the text before it was closed. */
  openTag(name: string): void {
    const content = this.text.value
    if (content.length > 0) this.done.push({ type: 'text', content, partial: false })
    this.text = this.newField()
    if (this.tools.has(name)) {
      // own keys only: a dialect given as a plain object inherits `constructor` and friends
      const greedy = Object.hasOwn(this.greedy, name) ? this.greedy[name] : undefined
      const body = greedy === undefined ? null : new ToolBody(greedy, name, this.o.decodeEntities, this.o.greedyWhileStreaming, this.src)
      this.tool = { name, call_id: this.o.idGenerator(), params: {}, close: '/' + name, body, views: body === null ? NO_VIEWS : body.views }
      this.setMode(Mode.Tool)
      return
    }
    this.setMode(Mode.Reasoning)
    this.reasoningClose = '</' + name + '>'
    this.closeRe = closeNameRegex(this.closeNames, name)
    this.reasoning = this.newField()
  }

  /**
   * Tool mode (SPEC 3.3): an opening param tag starts its value, the tool's own closing tag
   * closes it; everything else is dropped.
   */
  private scanTool(w: string, p: number): number {
    const tool = this.tool!
    const re = this.toolTags.exact
    re.lastIndex = p
    for (let m = re.exec(w); m !== null; m = re.exec(w)) {
      const name = m[1]!
      const s = m.index
      if (name === tool.close) {
        this.closeTool(w, s)
        return s + name.length + 2
      }
      // another tool's closing tag is dropped like any other text
      if (this.params.has(name)) {
        this.openParam(name, w, s + name.length + 2)
        return s + name.length + 2
      }
    }
    const cut = this.ended ? -1 : cutAt(w, p, this.toolTags.prefixes, this.toolMax)
    return cut < 0 ? ~w.length : ~cut
  }

  /** Param `name` opens; its value starts at `valueStart` in `w`. */
  openParam(name: string, w: string, valueStart: number): void {
    this.setMode(Mode.Param)
    this.paramName = name
    this.paramClose = '</' + name + '>'
    this.closeRe = closeNameRegex(this.closeNames, name)
    this.paramPath = intern('params.' + name)
    this.param = this.newField(this.o.decodeEntities)
    const tool = this.tool!
    if (tool.body !== null) tool.body.openParam(w, valueStart, name)
  }

  /** The open tool closes with its closing tag at `s` in `w`; text resumes after it. */
  closeTool(w: string, s: number): void {
    const tool = this.tool!
    if (tool.body !== null) tool.body.close(w, s, tool.params)
    this.done.push(toolBlock(tool, tool.params, false))
    this.tool = null
    this.setMode(Mode.Text)
    if (this.fences !== null) this.fences.bol = false
  }

  /**
   * Param mode (SPEC 3.4), and reasoning: only the matching closing tag ends it; the value is
   * pushed to `field`. Returns the index after the closing tag, or ~cut.
   */
  private scanClose(w: string, p: number, base: number, close: string, field: Field): number {
    if (this.lenient) return scanCloseLenient(this, w, p, base, close, field, this.ended, this.closeRe)
    const i = findClose(w, p, close, this.ended, this.closeRe)
    if (i < 0) {
      field.pushAt(p === 0 && ~i === w.length ? w : w.slice(p, ~i), base + p)
      return i
    }
    field.pushAt(w.slice(p, i), base + p)
    this.closeAt = i
    return i + close.length
  }

  private setMode(m: Mode): void {
    this.mode = m
    this.shape++
  }

  /** Marks the end of the input: a held tag candidate can no longer become a tag. */
  end(): void {
    this.ended = true
  }

  /**
   * What is wrong at the end of the text so far (unclosed tool or param, truncated opening tag,
   * a pending run of dropped text), without changing any state.
   */
  endDiagnostics(): Diagnostic[] {
    const diag = this.diag
    if (diag === null) return []
    const carry = this.carry
    const cut = this.mode === Mode.Text && carry.length > 1 && this.cutTag(carry.slice(1), this.textTags, true) ? carry : null
    const inTool = this.mode === Mode.Tool || this.mode === Mode.Param
    return diag.atEnd(cut, this.pos, inTool ? this.tool!.name : null, this.mode === Mode.Param ? this.paramName : null, this.pos + carry.length)
  }

  /** One result object per engine, filled in place: the stream asks after every chunk. */
  private readonly scratch: OpenField = { path: '', field: new Field(), ext: '' }

  /**
   * The one string of the open block that grows as text arrives, with its rendering after
   * `field.core`; null when there is none or when two values grow at once (a param streaming
   * while a greedy view is open). The object is reused: read it before the next call.
   */
  openField(final = false): OpenField | null {
    return openField(this, final, this.scratch)
  }

  /** Every value of the open tool that grows, when `openField` is null because several do. */
  growingFields(final = false): OpenField[] {
    return growingFields(this, final)
  }

  /**
   * Renders the open block (null when there is none, or it is empty text), as a parse of the
   * text so far would show it (SPEC 3.6). `final` completes it. Pure: rendering twice gives the
   * same block.
   */
  render(final = false): Block | null {
    return render(this, final)
  }

  /** The whole parse so far: complete blocks then the open one. */
  blocks(final = false): Block[] {
    const open = this.render(final)
    return open === null ? this.done.slice() : [...this.done, open]
  }
}

/**
 * One engine of each profile, mid-call, kept for the life of the process. V8's optimised code
 * for the engine and its parts checks their hidden classes, which only live instances hold (a
 * class's hidden class is reached from its constructor through weak transitions); a full
 * collection between two parses found none and dropped that code ("weak objects" in
 * --trace-deopt), so the next parses ran unoptimised: 2-4x slower for several parses after
 * every major GC. These instances keep the classes alive, and with them the code
 * (exported so the module keeps them: an unused module-level value dies with the module body).
 */
export const warmEngines: Engine[] = []
for (const profile of ['cline', 'robust'] as const) {
  const e = new Engine(resolveOptions({ profile, idGenerator: () => '' }))
  e.feed('a <write_to_file><path>p</path><content>c')
  warmEngines.push(e)
}

/**
 * The `diagnostics` option: what the parser notices along the text (unknown tool-like tags,
 * text dropped inside a tool) and at its end, capped at `maxDiagnostics`; the engine holds one
 * only when the option is on.
 * @internal
 * @module
 */
import type { Diagnostic } from '../types.js'
import { looksLikeTool } from './tags.js'

/** Characters of dropped text quoted in an `ignored-content` diagnostic. */
const SAMPLE = 40

export class Diagnostics {
  /** Diagnostics found past `max`, and the offset of the first of them. */
  private dropped = 0
  private droppedAt = 0
  /** Start of a run of dropped text inside a tool, or -1. */
  private dropAt = -1
  private dropSample = ''

  /**
   * @param list the engine's `diagnostics`, which this object alone writes
   * @param cache names already judged by looksLikeTool (prose repeats its `<div>`s)
   */
  constructor(
    private readonly list: Diagnostic[],
    private readonly max: number,
    private readonly tools: Set<string>,
    private readonly params: Set<string>,
    private readonly cache: Map<string, boolean>,
  ) {}

  /**
   * The diagnostics of the input's end, as the engine found it: inside an opening tag (`cutTag`,
   * its raw text, at `pos`), inside the call `tool` (with its `param` open) at `at`; then the
   * count of those dropped past `max`. Never capped: they are few and say how the message ended.
   */
  atEnd(cutTag: string | null, pos: number, tool: string | null, param: string | null, at: number): Diagnostic[] {
    const out: Diagnostic[] = []
    if (cutTag !== null) out.push({ code: 'truncated-open-tag', message: `the input ended inside an opening tag ${JSON.stringify(cutTag)}`, offset: pos })
    if (tool !== null) {
      const dropped = this.ignoredDiagnostic(tool)
      if (dropped !== null) out.push(dropped)
      if (param !== null) out.push({ code: 'unclosed-param', message: `the input ended inside <${param}> of <${tool}>`, offset: at })
      out.push({ code: 'unclosed-tool', message: `the input ended inside <${tool}>: the call has no closing tag`, offset: at })
    }
    const d = this.droppedDiagnostic()
    if (d !== null) out.push(d)
    return out
  }

  /** A tag in text that is no tool of the dialect: reported if it reads as an attempted call. */
  checkUnknown(name: string, offset: number): void {
    if (this.params.has(name)) return
    let yes = this.cache.get(name)
    if (yes === undefined) {
      yes = looksLikeTool(name, this.tools)
      if (this.cache.size < 4096) this.cache.set(name, yes)
    }
    if (!yes) return
    // report()'s cap, checked first so that a flood past it builds no message
    if (this.list.length >= this.max) return this.drop(offset)
    this.list.push({ code: 'unknown-tool', message: `<${name}> looks like a tool call but is not a tool of this dialect; it was kept as text`, offset })
  }

  /**
   * Collects a run of dropped text inside a tool; the run is reported once, when a recognised
   * tag or the end of the input ends it, so the report does not depend on chunking.
   */
  ignored(w: string, from: number, to: number, base: number): void {
    if (to <= from) return
    if (this.dropAt < 0) {
      const piece = w.slice(from, to)
      const lead = piece.length - piece.trimStart().length
      if (lead === piece.length) return
      this.dropAt = base + from + lead
      this.dropSample = piece.slice(lead, lead + SAMPLE)
    } else if (this.dropSample.length < SAMPLE) {
      this.dropSample += w.slice(from, Math.min(to, from + SAMPLE - this.dropSample.length))
    }
  }

  /** A recognised tag in tool `tool` ends the run of dropped text: it is reported. */
  flushIgnored(tool: string): void {
    const d = this.ignoredDiagnostic(tool)
    if (d === null) return
    this.report(d)
    this.dropAt = -1
    this.dropSample = ''
  }

  /** The report of the pending run of dropped text, if any (its sample is at most SAMPLE long). */
  ignoredDiagnostic(tool: string): Diagnostic | null {
    if (this.dropAt < 0) return null
    return {
      code: 'ignored-content',
      message: `dropped ${JSON.stringify(this.dropSample.trim())} inside <${tool}>, outside any parameter`,
      offset: this.dropAt,
    }
  }

  /**
   * Keeps a diagnostic found along the text, up to `max`. They are found in the same order
   * whatever the chunking, so the ones kept and the count of the rest are the same too.
   */
  private report(d: Diagnostic): void {
    if (this.list.length < this.max) this.list.push(d)
    else this.drop(d.offset)
  }

  private drop(offset: number): void {
    if (this.dropped++ === 0) this.droppedAt = offset
  }

  /** The last end-of-input diagnostic: how many were left out past `max`, if any. */
  droppedDiagnostic(): Diagnostic | null {
    if (this.dropped === 0) return null
    const n = this.dropped
    return {
      code: 'diagnostics-dropped',
      message: `${n} more diagnostic${n === 1 ? ' was' : 's were'} found and left out after the first ${this.max} (option maxDiagnostics)`,
      offset: this.droppedAt,
    }
  }
}

/**
 * Rendering the engine's open block as a parse of the text so far would show it (SPEC 3.6): the
 * whole block, or only its growing field for the stream's `append` diffs; greedy views and
 * held-back fragments (`hidePartialTags`) included.
 * @internal
 * @module
 */
import type { Block, ToolUseBlock } from '../types.js'
import type { Field } from './field.js'
import type { GreedyView } from './greedy.js'
import { Mode, type Engine, type ToolState } from './engine.js'

/**
 * The field of the open block that is still growing, and how its rendering relates to `core`.
 * @group Parsing
 */
export interface OpenField {
  path: string
  field: Field
  /** Rendered value = field.core + ext. */
  ext: string
}

/** A tool block with the given params. */
export function toolBlock(tool: ToolState, params: Record<string, string>, partial: boolean, truncated = false): ToolUseBlock {
  const b: ToolUseBlock = { type: 'tool_use', name: tool.name, params, partial, call_id: tool.call_id, isNativeToolCall: false }
  if (truncated) b.truncated = true
  return b
}

/**
 * The one string of the open block that grows as text arrives, with its rendering after
 * `field.core`; null when there is none or when two values grow at once (a param streaming
 * while a greedy view is open). `scratch` is filled and returned.
 */
export function openField(e: Engine, final: boolean, scratch: OpenField): OpenField | null {
  const hide = e.o.hidePartialTags && !e.ended
  switch (e.mode) {
    case Mode.Text:
      return fill(scratch, 'content', e.text, e.text.ext(textTail(e, hide)))
    case Mode.Reasoning: {
      const f = e.reasoning!
      return fill(scratch, 'reasoning', f, f.ext(hide ? '' : e.carry))
    }
    case Mode.Tool:
    case Mode.Param: {
      const inParam = e.mode === Mode.Param
      let found: GreedyView | null = null
      for (const v of e.tool!.views) {
        if (!v.active) continue
        if ((inParam && e.paramName !== v.name) || found !== null) return null
        found = v
      }
      if (found !== null) return fill(scratch, found.path, found.field, viewExt(e, found, final, hide))
      if (!inParam) return null
      const f = e.param!
      return fill(scratch, e.paramPath, f, hide ? f.ext('', true) : f.ext(e.carry))
    }
  }
}

/**
 * Every value of the open tool that grows, when `openField` has none because several grow at
 * once (a param streaming while a greedy view is open): new objects, one per value. The stream
 * uses them to send what each gained instead of comparing whole values after every chunk.
 */
export function growingFields(e: Engine, final: boolean): OpenField[] {
  const out: OpenField[] = []
  if (e.mode !== Mode.Tool && e.mode !== Mode.Param) return out
  const hide = e.o.hidePartialTags && !e.ended
  let viewed = false
  for (const v of e.tool!.views) {
    if (!v.active) continue
    out.push({ path: v.path, field: v.field, ext: viewExt(e, v, final, hide) })
    if (e.paramName === v.name) viewed = true
  }
  if (e.mode === Mode.Param && !viewed) {
    const f = e.param!
    out.push({ path: e.paramPath, field: f, ext: hide ? f.ext('', true) : f.ext(e.carry) })
  }
  return out
}

function fill(o: OpenField, path: string, field: Field, ext: string): OpenField {
  o.path = path
  o.field = field
  o.ext = ext
  return o
}

/** What a cut tag at the end of text renders as. */
function textTail(e: Engine, hide: boolean): string {
  const tail = e.carry
  if (hide && tail.length > 0 && e.cutTag(tail.slice(1), e.textTags, false)) return ''
  return tail
}

/** A greedy view's rendering after its core: held back while streaming, released at the end. */
function viewExt(e: Engine, v: GreedyView, final: boolean, hide: boolean): string {
  const inside = e.mode === Mode.Param && e.paramName === v.name
  return v.ext(final ? (inside ? e.carry : '') : null, hide)
}

/**
 * Renders the open block (null when there is none, or it is empty text), as a parse of the
 * text so far would show it. `final` completes it. Pure: rendering twice gives the same block.
 */
export function render(e: Engine, final: boolean): Block | null {
  const hide = e.o.hidePartialTags && !e.ended
  switch (e.mode) {
    case Mode.Text: {
      const content = e.text.core + e.text.ext(textTail(e, hide))
      return content.length === 0 ? null : { type: 'text', content, partial: !final }
    }
    case Mode.Reasoning: {
      const f = e.reasoning!
      const reasoning = f.core + f.ext(hide ? '' : e.carry)
      return reasoning.length === 0 ? null : { type: 'reasoning', reasoning, partial: !final }
    }
    case Mode.Tool:
    case Mode.Param: {
      const tool = e.tool!
      const params = { ...tool.params }
      let viewed = false
      for (const v of tool.views) {
        if (!v.active) continue
        params[v.name] = v.field.core + viewExt(e, v, final, hide)
        if (e.paramName === v.name) viewed = true
      }
      if (e.mode === Mode.Param && !viewed) {
        const f = e.param!
        params[e.paramName] = f.core + (hide ? f.ext('', true) : f.ext(e.carry))
      }
      return toolBlock(tool, params, !final, final && e.o.truncation)
    }
  }
}

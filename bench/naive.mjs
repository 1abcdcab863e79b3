// A naive reference parser for the `cline` profile (SPEC section 3), written the way the original
// Cline parser (parseAssistantMessageV2) works: it advances one character at a time and, at every
// index, asks "does a tag end here?" by testing every candidate tag with
// `text.startsWith(tag, i - tag.length + 1)` — every tool opening tag in text, every param
// opening tag (and the tool's closing tag) inside a tool, the param's closing tag inside a param.
// The tag tables are precomputed Maps iterated per character, as in the original.
//
// It exists only as the baseline of the benchmarks and as an independent check of
// parseAssistantMessage: it must give the same blocks (minus call_id / isNativeToolCall).
// Single-shot cost is O(n * number of tags); re-running it after every chunk, as the original
// does while streaming, is O(n^2).
import { clineDialect } from '../dist/index.js'

/**
 * @param {string} text the assistant message (or a prefix of it)
 * @param {{tools: readonly string[], params: readonly string[], greedy: Record<string, readonly string[]>}} [dialect]
 * @returns {Array<object>} blocks without ids, as the conformance corpus writes them
 */
export function naiveParse(text, dialect = clineDialect) {
  const blocks = []
  const toolOpenTags = new Map()
  for (const name of dialect.tools) toolOpenTags.set(`<${name}>`, name)
  const paramOpenTags = new Map()
  for (const name of dialect.params) paramOpenTags.set(`<${name}>`, name)

  let textStart = 0
  let inText = false
  let tool // { type, name, params, partial }
  let toolStart = 0
  let paramName
  let paramStart = 0

  const len = text.length
  for (let i = 0; i < len; i++) {
    // --- inside a param: only its own closing tag ends it (rule 3.4)
    if (tool !== undefined && paramName !== undefined) {
      const close = `</${paramName}>`
      if (i >= close.length - 1 && text.startsWith(close, i - close.length + 1)) {
        tool.params[paramName] = text.slice(paramStart, i - close.length + 1).trim()
        paramName = undefined
      }
      continue
    }

    // --- inside a tool, outside a param (rule 3.3)
    if (tool !== undefined) {
      let started = false
      for (const [tag, name] of paramOpenTags.entries()) {
        if (i >= tag.length - 1 && text.startsWith(tag, i - tag.length + 1)) {
          paramName = name
          paramStart = i + 1
          started = true
          break
        }
      }
      if (started) continue
      const close = `</${tool.name}>`
      if (i >= close.length - 1 && text.startsWith(close, i - close.length + 1)) {
        // greedy params (rule 3.5): first opening tag to last closing tag of the tool's body
        const greedy = dialect.greedy[tool.name]
        if (greedy !== undefined) {
          const body = text.slice(toolStart, i - close.length + 1)
          for (const g of greedy) {
            const open = `<${g}>`
            const start = body.indexOf(open)
            if (start < 0) continue
            const end = body.lastIndexOf(`</${g}>`)
            if (end > start) tool.params[g] = body.slice(start + open.length, end).trim()
          }
        }
        tool.partial = false
        blocks.push(tool)
        tool = undefined
        textStart = i + 1
        inText = false
      }
      continue
    }

    // --- text (rule 3.2)
    let opened = false
    for (const [tag, name] of toolOpenTags.entries()) {
      if (i >= tag.length - 1 && text.startsWith(tag, i - tag.length + 1)) {
        if (inText) {
          const content = text.slice(textStart, i - tag.length + 1).trim()
          if (content.length > 0) blocks.push({ type: 'text', content, partial: false })
          inText = false
        }
        tool = { type: 'tool_use', name, params: {}, partial: true }
        toolStart = i + 1
        opened = true
        break
      }
    }
    if (opened) continue
    if (!inText) {
      inText = true
      textStart = i
    }
  }

  // --- end of text (rule 3.6)
  if (tool !== undefined) {
    if (paramName !== undefined) tool.params[paramName] = text.slice(paramStart).trim()
    blocks.push(tool)
  } else if (inText) {
    const content = text.slice(textStart).trim()
    if (content.length > 0) blocks.push({ type: 'text', content, partial: true })
  }
  return blocks
}

/** A block of parseAssistantMessage without the fields the corpus omits (call_id, isNativeToolCall). */
export function stripIds(blocks) {
  return blocks.map((b) => {
    if (b.type !== 'tool_use') return b
    const { call_id: _id, isNativeToolCall: _n, ...rest } = b
    return rest
  })
}

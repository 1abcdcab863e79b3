/**
 * Display cleaning of text blocks (SPEC 7.1): what the original shows for a text block, byte for
 * byte. Pure functions, no state; the Presenter calls it on every update of a text block.
 * @module
 */

// Tag and the one white-space character next to it: the opening tag takes the character after
// it, the closing tag the one before, so the text between keeps its own line breaks.
const STRIP: readonly RegExp[] = [
  /<thinking>\s?/g,
  /\s?<\/thinking>/g,
  /<think>\s?/g,
  /\s?<\/think>/g,
  /<function_calls>\s?/g,
  /\s?<\/function_calls>/g,
]

const TAG_NAME = /^[a-zA-Z_]+$/
const FENCE_OPENER = /```[a-zA-Z0-9_-]+$/

/**
 * The text a UI should show for a text block: `<thinking>`, `<think>` and `<function_calls>`
 * tags are removed (their contents kept), a partial tag at the very end (`Hello <read_fi`,
 * `see </thin`, a lone `<`) is cut, and on a complete block a trailing code-fence opener such as
 * ```` ```xml ```` is cut. These are the artifacts a model leaves around tool calls; showing them
 * makes the UI flicker as tags appear and vanish while streaming.
 *
 * The result equals the original implementation's for every case of
 * `conformance/present-text.cline.jsonl`, including its quirks (a cut partial tag also trims the
 * text before it; a `<` followed by something that is not a bare tag name, such as `1 < 2`, stays).
 * @param content - the block's `content`, as parsed
 * @param partial - the block's `partial` flag: the fence opener is only cut on complete blocks,
 *   since while streaming it may still become a code block
 * @example
 * ```ts
 * import { cleanDisplayText } from 'tagstream'
 * cleanDisplayText('<thinking>plan</thinking> go', false) // 'plan go'
 * cleanDisplayText('wait <read_fi', true)                 // 'wait'
 * cleanDisplayText('Done.\n```xml', false)               // 'Done.\n'
 * ```
 */
export function cleanDisplayText(content: string, partial: boolean): string {
  let text = content
  if (text.length > 0) {
    // cheap check first: most text has none of the tags
    if (text.includes('<')) {
      for (const re of STRIP) text = text.replace(re, '')
      text = cutPartialTag(text)
    }
  }
  if (!partial && text.includes('```')) {
    const trimmed = text.trimEnd()
    const m = FENCE_OPENER.exec(trimmed)
    if (m !== null) text = trimmed.slice(0, trimmed.length - m[0].length)
  }
  return text
}

/** Cuts a tag that is still being written at the end of the text (no `>` after the last `<`). */
function cutPartialTag(text: string): string {
  const lt = text.lastIndexOf('<')
  if (lt === -1) return text
  const tail = text.slice(lt)
  if (tail.includes('>')) return text
  const name = (tail.startsWith('</') ? tail.slice(2) : tail.slice(1)).trim()
  if (tail === '<' || tail === '</' || TAG_NAME.test(name)) return text.slice(0, lt).trim()
  return text
}

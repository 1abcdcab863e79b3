/**
 * `replay --render`: a live terminal view of diff records. Text streams as it grows (cleaned
 * as the Presenter would show it), tool calls appear when they complete, colours only when
 * asked (a TTY, no NO_COLOR).
 */
import { applyDiff, cleanDisplayText, type Block, type DiffRecord, type ToolUseBlock } from 'tagstream'

/** ANSI styles, or none. */
export interface Style {
  dim(s: string): string
  bold(s: string): string
  tool(s: string): string
  warn(s: string): string
  ok(s: string): string
  reason(s: string): string
}

const esc = (code: string) => (s: string): string => `\u001b[${code}m${s}\u001b[0m`

/** Styles for a colour terminal, or plain text. */
export function makeStyle(color: boolean): Style {
  if (!color) {
    const id = (s: string): string => s
    return { dim: id, bold: id, tool: id, warn: id, ok: id, reason: id }
  }
  return { dim: esc('2'), bold: esc('1'), tool: esc('1;36'), warn: esc('33'), ok: esc('32'), reason: esc('2;3') }
}

/** Whether to colour: a TTY, unless NO_COLOR is set; `--color` / `--no-color` decide first. */
export function wantColor(out: NodeJS.WritableStream, force: boolean | undefined): boolean {
  if (force !== undefined) return force
  return (out as NodeJS.WriteStream).isTTY === true && (process.env.NO_COLOR ?? '') === ''
}

const MAX_INLINE = 100
const PREVIEW_LINES = 3

/** One parameter, whole if short, else its first lines and its size. */
function formatParam(name: string, value: string, st: Style): string {
  const lines = value.split('\n')
  if (lines.length === 1 && value.length <= MAX_INLINE) return `  ${st.dim(name + ':')} ${value}`
  const shown = lines.slice(0, PREVIEW_LINES).map((l) => (l.length > MAX_INLINE ? l.slice(0, MAX_INLINE) + '…' : l))
  const more = st.dim(`  … ${lines.length === 1 ? '' : `${lines.length} lines, `}${Buffer.byteLength(value)} bytes`)
  return [`  ${st.dim(name + ':')}`, ...shown.map((l) => `    ${l}`), `  ${more}`].join('\n')
}

/** How a completed tool call looks. */
export function formatTool(b: ToolUseBlock, st: Style): string {
  // a native call (SPEC 8a) says so; its cut is of its JSON arguments, not of a closing tag
  const id = b.isNativeToolCall ? `(${b.call_id}, native)` : `(${b.call_id})`
  const cut = b.isNativeToolCall ? 'arguments incomplete or not an object: would not run' : 'cut off: would not run'
  const head = `${st.tool('⏺ ' + b.name)} ${st.dim(id)}${b.truncated === true ? ' ' + st.warn(cut) : ''}`
  return [head, ...Object.entries(b.params).map(([k, v]) => formatParam(k, v, st))].join('\n')
}

/**
 * Consumes diff records and writes the view. Text is written as it grows; what was written
 * cannot be taken back, so a block whose shown text changed other than by growing (rare: a
 * held-back tag resolved differently) is written again on a fresh line.
 */
export class TerminalRenderer {
  private blocks: Block[] = []
  private shown: string[] = []
  private toolShown: boolean[] = []
  private current = -1 // index of the block whose text is being written
  private atLineStart = true

  constructor(private readonly write: (s: string) => void, private readonly st: Style) {}

  private out(s: string): void {
    if (s.length === 0) return
    this.write(s)
    this.atLineStart = s.endsWith('\n')
  }

  private newline(): void {
    if (!this.atLineStart) this.out('\n')
  }

  /** Takes one record. */
  push(r: DiffRecord): void {
    switch (r.op) {
      case 'message': {
        this.newline()
        const model = typeof r.meta?.model === 'string' ? ` ${r.meta.model}` : ''
        this.out(this.st.dim(`── ${r.id}${model} ${'─'.repeat(Math.max(4, 40 - r.id.length - model.length))}`) + '\n')
        this.blocks = []
        this.shown = []
        this.toolShown = []
        this.current = -1
        return
      }
      case 'end':
        this.newline()
        this.out('\n')
        return
      case 'diagnostic':
        this.newline()
        this.out(this.st.warn(`⚠ ${r.code}: ${r.message}`) + '\n')
        return
      default:
        this.blocks = applyDiff(this.blocks, r)
        this.shown.length = Math.min(this.shown.length, this.blocks.length)
        this.toolShown.length = Math.min(this.toolShown.length, this.blocks.length)
        if (r.op !== 'truncate') this.show(r.index)
    }
  }

  private show(i: number): void {
    const b = this.blocks[i]!
    if (b.type === 'tool_use') {
      if (b.partial || this.toolShown[i] === true) return
      this.toolShown[i] = true
      this.newline()
      this.out(formatTool(b, this.st) + '\n')
      this.current = -1
      return
    }
    const text = b.type === 'text' ? cleanDisplayText(b.content, b.partial) : b.reasoning
    const before = this.shown[i] ?? ''
    if (text === before) return
    if (this.current !== i) {
      this.newline()
      if (this.current !== -1 || i > 0) this.out('\n')
      if (b.type === 'reasoning') this.out(this.st.dim('thinking: '))
      this.current = i
    }
    const paint = b.type === 'reasoning' ? this.st.reason : (s: string): string => s
    if (text.startsWith(before)) this.out(paint(text.slice(before.length)))
    else {
      this.newline()
      this.out(paint(text))
    }
    this.shown[i] = text
  }
}

/**
 * Dialects: which tag names are tools, which are parameters, which tools only read, and which
 * parameters are greedy. Validated once when made, so the parser can trust them.
 * @module
 */
import { TagstreamError } from './errors.js'

/**
 * A validated, frozen description of a tag protocol.
 * @example
 * ```ts
 * const d: Dialect = defineDialect({ tools: ['ask'], params: ['question'] })
 * d.tools.includes('ask') // true
 * ```
 * @group Parsing
 */
export interface Dialect {
  /** Tool names, in a stable order. */
  readonly tools: readonly string[]
  /** Parameter names, accepted inside any tool. */
  readonly params: readonly string[]
  /** Tools that only read (they never wait for a checkpoint, see the Presenter). */
  readonly readOnlyTools: readonly string[]
  /** Greedy parameters per tool (SPEC 3.5): their final value runs to the last closing tag. */
  readonly greedy: Readonly<Record<string, readonly string[]>>
}

/**
 * What {@link defineDialect} accepts. Lists may repeat names of the base dialect.
 * @example
 * ```ts
 * const spec: DialectSpec = { tools: ['use_subagent_docs'], params: ['prompt'], extends: clineDialect }
 * ```
 * @group Parsing
 */
export interface DialectSpec {
  /** Tool names. */
  tools: readonly string[]
  /** Parameter names. */
  params: readonly string[]
  /** Read-only tools; each must be one of the tools. */
  readOnlyTools?: readonly string[]
  /** Greedy parameters per tool, e.g. `{ write_to_file: ['content'] }`. */
  greedy?: Readonly<Record<string, readonly string[]>>
  /** A dialect whose names are included first. */
  extends?: Dialect
}

const BAD_NAME = /[<>/\s]/u

/**
 * A usable tag name: non-empty, without `<`, `>`, `/` or white space. @internal
 * @group Parsing
 */
export function isTagName(name: unknown): name is string {
  return typeof name === 'string' && name.length > 0 && !BAD_NAME.test(name)
}

function checkName(kind: string, name: unknown): string {
  if (!isTagName(name)) {
    throw new TagstreamError(
      'ERR_INVALID_DIALECT',
      `invalid ${kind} name ${JSON.stringify(name)}: names must be non-empty and free of <, >, / and white space`,
      { kind, name },
    )
  }
  // blocks keep params in plain objects, and diffs name them by path: this one name would
  // write a prototype instead of a param (ERR_INVALID_DIFF refuses it too)
  if (name === '__proto__') {
    throw new TagstreamError('ERR_INVALID_DIALECT', `invalid ${kind} name "__proto__": it cannot be a tag name`, { kind, name })
  }
  return name
}

function uniqueNames(kind: string, base: readonly string[], extra: readonly string[]): string[] {
  const seen = new Set<string>()
  const out: string[] = []
  for (const n of [...base, ...extra]) {
    checkName(kind, n)
    if (!seen.has(n)) {
      seen.add(n)
      out.push(n)
    }
  }
  return out
}

/**
 * Makes a dialect, checking every name. Throws a {@link TagstreamError} with code
 * `ERR_INVALID_DIALECT` naming the first bad name.
 * @example
 * ```ts
 * import { defineDialect, clineDialect, parseAssistantMessage } from 'tagstream'
 * const dialect = defineDialect({ extends: clineDialect, tools: ['use_subagent_docs'], params: [] })
 * parseAssistantMessage('<use_subagent_docs><prompt>hi</prompt></use_subagent_docs>', { dialect })
 * ```
 * @group Parsing
 */
export function defineDialect(spec: DialectSpec): Dialect {
  if (spec === null || typeof spec !== 'object') {
    throw new TagstreamError('ERR_INVALID_DIALECT', 'a dialect must be an object with tools and params')
  }
  const base = spec.extends
  if (!Array.isArray(spec.tools) || !Array.isArray(spec.params)) {
    throw new TagstreamError('ERR_INVALID_DIALECT', 'a dialect needs arrays "tools" and "params"')
  }
  const tools = uniqueNames('tool', base?.tools ?? [], spec.tools)
  const params = uniqueNames('param', base?.params ?? [], spec.params)
  const toolSet = new Set(tools)
  const readOnlyTools = uniqueNames('readOnlyTools', base?.readOnlyTools ?? [], spec.readOnlyTools ?? [])
  for (const t of readOnlyTools) {
    if (!toolSet.has(t)) {
      throw new TagstreamError('ERR_INVALID_DIALECT', `read-only tool ${JSON.stringify(t)} is not one of the tools`, { name: t })
    }
  }
  // keyed by tool names, so no prototype: a tool named constructor has no greedy params
  const greedy: Record<string, readonly string[]> = Object.assign(Object.create(null) as Record<string, readonly string[]>, base?.greedy ?? {})
  for (const [tool, names] of Object.entries(spec.greedy ?? {})) {
    checkName('tool', tool)
    if (!toolSet.has(tool)) {
      throw new TagstreamError('ERR_INVALID_DIALECT', `greedy tool ${JSON.stringify(tool)} is not one of the tools`, { name: tool })
    }
    for (const p of names) {
      checkName('param', p)
      if (!params.includes(p)) {
        throw new TagstreamError('ERR_INVALID_DIALECT', `greedy param ${JSON.stringify(p)} is not one of the params`, { name: p })
      }
    }
    greedy[tool] = Object.freeze([...new Set([...(greedy[tool] ?? []), ...names])])
  }
  return Object.freeze({
    tools: Object.freeze(tools),
    params: Object.freeze(params),
    readOnlyTools: Object.freeze(readOnlyTools),
    greedy: Object.freeze(greedy),
  })
}

/**
 * The Cline protocol: 27 tools, 45 parameters, write_to_file's `content` greedy.
 * @example
 * ```ts
 * clineDialect.tools.length // 27
 * ```
 * @group Parsing
 */
export const clineDialect: Dialect = defineDialect({
  tools: [
    'ask_followup_question', 'attempt_completion', 'execute_command', 'replace_in_file', 'read_file',
    'write_to_file', 'search_files', 'list_files', 'list_code_definition_names', 'browser_action',
    'use_mcp_tool', 'access_mcp_resource', 'load_mcp_documentation', 'new_task', 'plan_mode_respond',
    'act_mode_respond', 'focus_chain', 'web_fetch', 'web_search', 'condense', 'summarize_task',
    'report_bug', 'new_rule', 'apply_patch', 'generate_explanation', 'use_skill', 'use_subagents',
  ],
  params: [
    'command', 'requires_approval', 'path', 'absolutePath', 'content', 'diff', 'regex', 'file_pattern',
    'recursive', 'action', 'url', 'coordinate', 'text', 'query', 'allowed_domains', 'blocked_domains',
    'prompt', 'server_name', 'tool_name', 'arguments', 'uri', 'question', 'options', 'response',
    'result', 'context', 'title', 'what_happened', 'steps_to_reproduce', 'api_request_output',
    'additional_context', 'needs_more_exploration', 'task_progress', 'timeout', 'input', 'from_ref',
    'to_ref', 'skill_name', 'prompt_1', 'prompt_2', 'prompt_3', 'prompt_4', 'prompt_5', 'start_line',
    'end_line',
  ],
  readOnlyTools: [
    'list_files', 'read_file', 'search_files', 'list_code_definition_names', 'browser_action',
    'ask_followup_question', 'web_search', 'web_fetch', 'use_skill', 'use_subagents',
  ],
  greedy: { write_to_file: ['content'] },
})

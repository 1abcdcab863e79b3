// One test per rule of SPEC section 3 (cline profile), with the expected blocks spelt out.
import t from 'tap'
import { parseAssistantMessage, defineDialect, clineDialect } from '../lib/index.js'
import { strip } from './helpers/arb.js'

const p = (s: string): unknown[] => strip(parseAssistantMessage(s))
const text = (content: string, partial = false) => ({ type: 'text', content, partial })
const tool = (name: string, params: Record<string, string>, partial = false) => ({ type: 'tool_use', name, params, partial })

t.test('3.1 tags are exact, case-sensitive; attributes, spaces, unknown names are text', async (t) => {
  t.same(p('<Read_File><path>a</path></Read_File>'), [text('<Read_File><path>a</path></Read_File>', true)])
  t.same(p('<read_file x="1"><path>a</path></read_file>'), [text('<read_file x="1"><path>a</path></read_file>', true)])
  t.same(p('< read_file><path>a</path></read_file>'), [text('< read_file><path>a</path></read_file>', true)])
  t.same(p('<bogus_tool>hi</bogus_tool>'), [text('<bogus_tool>hi</bogus_tool>', true)])
})

t.test('3.2 outside a tool: text closes at a tool tag, trimmed, not emitted if empty', async (t) => {
  t.same(p('  Hi there  <read_file>'), [text('Hi there'), tool('read_file', {}, true)])
  t.same(p(' \n <read_file>'), [tool('read_file', {}, true)])
  t.same(p('a </read_file> <path>x</path> b'), [text('a </read_file> <path>x</path> b', true)], 'closing and param tags outside a tool are text')
})

t.test('3.3 inside a tool: params open, own closing tag closes, the rest is dropped', async (t) => {
  t.same(p('<read_file>junk<foo>x</foo><path>a</path>more</read_file>after'), [tool('read_file', { path: 'a' }), text('after', true)])
  t.same(p('<read_file><execute_command></execute_command><path>a</path></read_file>'), [tool('read_file', { path: 'a' })], 'nested tool tags are dropped')
  t.same(p('<read_file><command>ls</command></read_file>'), [tool('read_file', { command: 'ls' })], 'any param name is accepted in any tool')
})

t.test('3.4 inside a param only its own closing tag ends it; repeated params overwrite in place', async (t) => {
  t.same(p('<execute_command><command>a </execute_command> <path>b</command></execute_command>'), [tool('execute_command', { command: 'a </execute_command> <path>b' })])
  t.same(p('<read_file><path>a</path><command>c</command><path>b</path></read_file>'), [tool('read_file', { path: 'b', command: 'c' })])
  const [b] = parseAssistantMessage('<read_file><path>a</path><command>c</command><path>b</path></read_file>')
  t.same(Object.keys((b as { params: object }).params), ['path', 'command'], 'the first assignment fixes the key order')
  t.same(p('<read_file><path>\n  spaced  \n</path></read_file>'), [tool('read_file', { path: 'spaced' })])
})

t.test('3.5 greedy params: first <content> to last </content> when the tool closes', async (t) => {
  t.same(p('<write_to_file><path>x</path><content>a</content>b</content>\n</write_to_file>'), [tool('write_to_file', { path: 'x', content: 'a</content>b' })])
  t.same(p('<write_to_file><path>x</path><content>a</content>b'), [tool('write_to_file', { path: 'x', content: 'a' }, true)], 'while open, rule 4 cuts at the first closing tag')
  t.same(p('<new_rule><content>a</content>b</content></new_rule>'), [tool('new_rule', { content: 'a' })], 'only greedy params of greedy tools')
  const dialect = defineDialect({ extends: clineDialect, tools: [], params: [], greedy: { new_rule: ['content'] } })
  t.same(strip(parseAssistantMessage('<new_rule><content>a</content>b</content></new_rule>', { dialect })), [tool('new_rule', { content: 'a</content>b' })], 'greedy is per dialect')
})

t.test('3.6 end of text: open param takes the rest, open tool and text stay partial', async (t) => {
  t.same(p('<read_file><path>src/a.ts</pa'), [tool('read_file', { path: 'src/a.ts</pa' }, true)])
  t.same(p('Hello <read_fi'), [text('Hello <read_fi', true)])
  t.same(p('<read_file><path>a</path></read_fi'), [tool('read_file', { path: 'a' }, true)])
  t.same(p('Hi  '), [text('Hi', true)])
  t.same(p(''), [])
})

t.test('3.7 no entity decoding, code fences mean nothing, <thinking> is text', async (t) => {
  t.same(p('<execute_command><command>a &amp;&amp; b</command></execute_command>'), [tool('execute_command', { command: 'a &amp;&amp; b' })])
  t.same(p('```\n<read_file><path>a</path></read_file>\n```'), [text('```'), tool('read_file', { path: 'a' }), text('```', true)])
  t.same(p('<thinking>hm</thinking>'), [text('<thinking>hm</thinking>', true)])
})

t.test('final: true completes open blocks as a stream end does', async (t) => {
  t.same(strip(parseAssistantMessage('Hi <read_file><path>a', { final: true })), [text('Hi'), tool('read_file', { path: 'a' })])
})

t.test('dialect validation names the bad name', async (t) => {
  for (const bad of ['', 'a b', 'a<b', 'a>b', 'a/b', 'tab\t']) {
    t.throws(() => defineDialect({ tools: [bad], params: [] }), { code: 'ERR_INVALID_DIALECT', message: new RegExp(JSON.stringify(bad).replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')) })
  }
  t.throws(() => defineDialect({ tools: ['a'], params: ['p'], readOnlyTools: ['b'] }), { code: 'ERR_INVALID_DIALECT', message: /"b"/ })
  t.throws(() => defineDialect({ tools: ['a'], params: ['p'], greedy: { a: ['q'] } }), { code: 'ERR_INVALID_DIALECT', message: /"q"/ })
  t.equal(clineDialect.tools.length, 27)
  t.equal(clineDialect.params.length, 45)
  t.equal(clineDialect.readOnlyTools.length, 10)
  const d = defineDialect({ extends: clineDialect, tools: ['use_subagent_docs'], params: ['topic'] })
  t.same(strip(parseAssistantMessage('<use_subagent_docs><topic>x</topic></use_subagent_docs>', { dialect: d })), [tool('use_subagent_docs', { topic: 'x' })])
})

t.test('names that objects inherit are ordinary names; __proto__ is refused', async (t) => {
  for (const kind of ['tools', 'params'] as const) {
    t.throws(() => defineDialect({ tools: kind === 'tools' ? ['__proto__'] : ['a'], params: kind === 'params' ? ['__proto__'] : ['p'] }), { code: 'ERR_INVALID_DIALECT', message: /__proto__/ })
  }
  const d = defineDialect({ extends: clineDialect, tools: ['constructor', 'toString'], params: ['constructor', 'hasOwnProperty'] })
  t.same(strip(parseAssistantMessage('<constructor><path>a</path><constructor>x</constructor></constructor><toString><hasOwnProperty>y</hasOwnProperty></toString>', { dialect: d })),
    [tool('constructor', { path: 'a', constructor: 'x' }), tool('toString', { hasOwnProperty: 'y' })], 'no greedy rule or param is inherited')
  // a dialect given as a plain object (not made by defineDialect) inherits from Object.prototype
  const plain = { tools: ['constructor'], params: ['path'], readOnlyTools: [], greedy: { write_to_file: ['content'] } }
  t.same(strip(parseAssistantMessage('<constructor><path>a</path></constructor>', { dialect: plain })), [tool('constructor', { path: 'a' })])
})

t.test('bad options give ERR_INVALID_OPTION', async (t) => {
  t.throws(() => parseAssistantMessage('x', { profile: 'fast' as 'cline' }), { code: 'ERR_INVALID_OPTION' })
  t.throws(() => parseAssistantMessage('x', { codeFences: 'yes' as unknown as boolean }), { code: 'ERR_INVALID_OPTION' })
})

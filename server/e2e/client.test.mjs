// Drives `gno mcp` over stdio with the official MCP TypeScript SDK client,
// as an agent host would: initialize, list and call every tool with valid
// and invalid arguments, validate every structuredContent against the
// tool's outputSchema (ajv), follow pagination, check error codes,
// progress and cancellation, list and read resources.
//
// Run by run.sh with GNO_BIN set to a built gno binary.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import Ajv from 'ajv';

const GNO = process.env.GNO_BIN;
assert.ok(GNO, 'set GNO_BIN to the gno binary');

const DOCS = 130; // more than one resources/list page (100)
let root, env, client, stderr = '';
const clientErrors = [];
const ajv = new Ajv({ strict: false, allErrors: true });
const validators = new Map();

function gno(...args) {
  const r = spawnSync(GNO, args, { env, encoding: 'utf8' });
  assert.equal(r.status, 0, `gno ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function makeDocs(dir, n, prefix) {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) {
    const tags = i % 10 === 0 ? '---\ntags: [project/api, review]\n---\n' : '';
    writeFileSync(join(dir, `${prefix}-${String(i).padStart(4, '0')}.md`),
      `${tags}# ${prefix} ${i}\n\nThe quick brown fox number ${i} jumps over the lazy dog.\nMore text about hedgehogs ${i % 7}.\n`);
  }
}

// tinyPDF writes a PDF with one line of Helvetica text per page.
function tinyPDF(pages) {
  const objs = ['<</Type/Catalog/Pages 2 0 R>>',
    `<</Type/Pages/Kids[${pages.map((_, i) => `${3 + 2 * i} 0 R`).join(' ')}]/Count ${pages.length}>>`];
  const font = 3 + 2 * pages.length;
  pages.forEach((text, i) => {
    const stream = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
    objs.push(`<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 ${font} 0 R>>>>/Contents ${4 + 2 * i} 0 R>>`);
    objs.push(`<</Length ${stream.length}>>\nstream\n${stream}\nendstream`);
  });
  objs.push('<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>');
  let out = '%PDF-1.4\n';
  const offsets = objs.map((o, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  return out + `trailer\n<</Size ${objs.length + 1}/Root 1 0 R>>\nstartxref\n${xref}\n%%EOF\n`;
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'gno-mcp-e2e-'));
  env = { ...process.env, GNO_HOME: join(root, 'home') };
  makeDocs(join(root, 'notes'), DOCS, 'doc');
  gno('collection', 'add', join(root, 'notes'), '--name', 'notes');
  // A collection of converted documents: a PDF whose hits carry a page,
  // and a broken one that is skipped and counted.
  mkdirSync(join(root, 'papers'));
  writeFileSync(join(root, 'papers', 'report.pdf'), tinyPDF(['Estuaries and their tides.', 'The xylophonist measured salinity.']));
  writeFileSync(join(root, 'papers', 'broken.docx'), 'PK\x03\x04 not a zip');
  gno('collection', 'add', join(root, 'papers'), '--name', 'papers');
  gno('update');
  // GNO_MCP_LOG=FILE keeps the server's debug log for a failing run.
  const logArgs = process.env.GNO_MCP_LOG ? ['-v', '--log-file', process.env.GNO_MCP_LOG] : [];
  const transport = new StdioClientTransport({ command: GNO, args: ['mcp', '--enable-write', ...logArgs], env, stderr: 'pipe' });
  transport.stderr?.on('data', (d) => { stderr += d; });
  client = new Client({ name: 'gno-e2e', version: '1.0.0' }, { capabilities: {} });
  client.onerror = (e) => clientErrors.push(e);
  await client.connect(transport);
});

after(async () => {
  await client?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

// call invokes a tool and validates its structuredContent (success or
// error) against the tool's outputSchema.
async function call(name, args, opts) {
  const r = await client.callTool({ name, arguments: args }, undefined, opts);
  const v = validators.get(name);
  assert.ok(v, `no outputSchema compiled for ${name}`);
  assert.ok(r.structuredContent, `${name}: no structuredContent`);
  assert.ok(v(r.structuredContent), `${name}: structuredContent does not match outputSchema: ${ajv.errorsText(v.errors)}\n${JSON.stringify(r.structuredContent).slice(0, 500)}`);
  assert.equal(r.content[0].type, 'text');
  return r;
}

async function ok(name, args, opts) {
  const r = await call(name, args, opts);
  assert.ok(!r.isError, `${name}(${JSON.stringify(args)}) failed: ${r.content[0].text}`);
  return r.structuredContent;
}

async function fails(name, args, code) {
  const r = await call(name, args);
  assert.equal(r.isError, true, `${name}(${JSON.stringify(args)}) should fail with ${code}`);
  assert.equal(r.structuredContent.error.code, code, `${name}: ${r.content[0].text}`);
  assert.match(r.content[0].text, new RegExp(code));
  return r.structuredContent.error.message;
}

async function rpcError(promise) {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof McpError, `not an McpError: ${e}`);
    return e.code;
  }
  assert.fail('expected a JSON-RPC error');
}

test('server info and capabilities', () => {
  const info = client.getServerVersion();
  assert.equal(info.name, 'gno');
  const caps = client.getServerCapabilities();
  assert.ok(caps.tools && caps.resources);
  assert.ok(!caps.resources.subscribe && !caps.resources.listChanged && !caps.tools.listChanged);
  assert.match(client.getInstructions(), /thorough/);
});

test('tools/list: every tool has schemas and explicit annotations', async () => {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, ['gno_add_collection', 'gno_affected', 'gno_ask', 'gno_capture', 'gno_changes', 'gno_clear_reconciled', 'gno_delete',
    'gno_describe_package', 'gno_diff', 'gno_find_path', 'gno_get', 'gno_get_package_doc', 'gno_hubs', 'gno_job_status', 'gno_links',
    'gno_list_jobs', 'gno_list_tags', 'gno_mark_reconciled', 'gno_multi_get', 'gno_package_changes', 'gno_query', 'gno_related', 'gno_remove_collection', 'gno_rename',
    'gno_resolve', 'gno_search', 'gno_search_package_docs', 'gno_status', 'gno_sync', 'gno_tag', 'gno_update', 'gno_vsearch']);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.equal(t.outputSchema?.type, 'object', t.name);
    assert.ok(t.description, t.name);
    for (const k of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
      assert.equal(typeof t.annotations[k], 'boolean', `${t.name}.${k}`);
    }
    validators.set(t.name, ajv.getSchema(t.outputSchema.$id) ?? ajv.compile(t.outputSchema));
  }
  const limit = tools.find((t) => t.name === 'gno_search').inputSchema.properties.limit;
  assert.deepEqual([limit.minimum, limit.maximum, limit.default], [1, 100, 5]);
});

test('read tools with valid arguments', async () => {
  let sc = await ok('gno_search', { query: 'fox', limit: 3 });
  assert.equal(sc.results.length, 3);
  assert.equal(sc.meta.mode, 'bm25');
  assert.ok(!/[\x01\x02]/.test(sc.results[0].snippet));
  const { uri, docid } = sc.results[0];
  sc = await ok('gno_search', { query: 'hedgehogs', collection: 'NOTES', tagsAll: ['review'], minScore: 0, lang: 'en' });
  for (const r of sc.results) assert.ok(r.tags.includes('review'));
  sc = await ok('gno_query', { query: 'quick fox', fast: true });
  assert.ok(['bm25_only', 'hybrid'].includes(sc.meta.mode));
  assert.equal(typeof sc.meta.vectorsUsed, 'boolean');
  await ok('gno_query', { query: 'quick fox', thorough: true, expand: true, rerank: false });
  const v = await call('gno_vsearch', { query: 'fox' });
  if (v.isError) assert.match(v.content[0].text, /gno index/);
  sc = await ok('gno_get', { ref: uri, fromLine: 1, lineCount: 2 });
  assert.equal(sc.uri, uri);
  assert.deepEqual(sc.returnedLines, { start: 1, end: 2 });
  const byId = await call('gno_get', { ref: docid });
  assert.match(byId.content[0].text, /^1: /);
  sc = await ok('gno_multi_get', { refs: [uri, 'notes/nope.md'] });
  assert.deepEqual([sc.meta.returned, sc.meta.skipped], [1, 1]);
  sc = await ok('gno_multi_get', { pattern: 'notes/doc-000*.md', maxBytes: 100000, lineNumbers: false });
  assert.equal(sc.documents.length, 10);
  sc = await ok('gno_status', {});
  assert.equal(sc.totalDocuments, DOCS + 1);
  sc = await ok('gno_list_tags', { prefix: 'project/' });
  assert.deepEqual(sc.tags, [{ tag: 'project/api', count: 13 }]);
  sc = await ok('gno_changes', { since: 0 });
  assert.equal(sc.added.length, DOCS + 1);
  // The reconcile loop: affected notes, a document's own diff, and a
  // cursor's cache (gno's own, so no --enable-write is needed).
  sc = await ok('gno_affected', { since: 0 });
  assert.ok(Array.isArray(sc.changed) && Array.isArray(sc.notes));
  await ok('gno_diff', { ref: uri, since: 0 });
  await ok('gno_changes', { since: 0, diff: true });
  sc = await ok('gno_mark_reconciled', { files: [uri], cursor: 'e2e' });
  assert.equal(sc.cursor, 'e2e');
  sc = await ok('gno_clear_reconciled', { cursor: 'e2e' });
  assert.equal(sc.cleared, true);
  sc = await ok('gno_links', { ref: uri, includeContent: true });
  assert.equal(sc.uri, uri);
  await ok('gno_hubs', { metric: 'pagerank', limit: 3, includeContent: true });
  sc = await ok('gno_find_path', { source: uri, target: uri });
  assert.deepEqual([sc.found, sc.length], [true, 0]);
  sc = await ok('gno_resolve', { names: ['doc 1', 'dco 2'], strategy: 'fuzzy', threshold: 0.3 });
  assert.equal(sc.results.length, 2);
  await ok('gno_related', { ref: uri });
  sc = await ok('gno_get', { ref: uri, depth: 1 });
  assert.equal(typeof sc.incomingCount, 'number');
});

test('converted documents: PDF page, source mime, mirror, skipped files', async () => {
  let sc = await ok('gno_search', { query: 'xylophonist' });
  assert.equal(sc.results.length, 1);
  const r = sc.results[0];
  assert.equal(r.page, 2);
  assert.deepEqual([r.source.mime, r.source.ext], ['application/pdf', '.pdf']);
  sc = await ok('gno_get', { ref: r.uri, fromLine: r.lines.start, lineCount: r.lines.end - r.lines.start + 1 });
  assert.match(sc.content, /## Page 2\n\nThe xylophonist measured salinity\./);
  assert.equal(sc.source.mime, 'application/pdf');
  const { contents } = await client.readResource({ uri: r.uri });
  assert.equal(contents[0].mimeType, 'text/markdown');
  assert.match(contents[0].text, /mime: application\/pdf[\s\S]*1: ## Page 1/);
  sc = await ok('gno_status', {});
  const papers = sc.collections.find((c) => c.name === 'papers');
  assert.deepEqual(papers.skipped, { 'corrupt or unreadable': 1 });
});

test('invalid arguments and unknown tools', async () => {
  await fails('gno_search', {}, 'INVALID_INPUT');
  await fails('gno_search', { query: 42 }, 'INVALID_INPUT');
  await fails('gno_search', { query: 'x', limit: 0 }, 'INVALID_INPUT');
  await fails('gno_search', { query: 'x', limit: 101 }, 'INVALID_INPUT');
  await fails('gno_search', { query: 'x', minScore: 2 }, 'INVALID_INPUT');
  await fails('gno_query', { query: 'x', fast: 'yes' }, 'INVALID_INPUT');
  await fails('gno_vsearch', { query: ['x'] }, 'INVALID_INPUT');
  await fails('gno_search', { query: 'x', collection: 'nope' }, 'NOT_FOUND');
  await fails('gno_get', { ref: 'gno://notes/missing.md' }, 'NOT_FOUND');
  await fails('gno_get', { ref: 'notes/x.md', fromLine: 0 }, 'INVALID_INPUT');
  await fails('gno_multi_get', { refs: ['a/b'], pattern: 'x' }, 'INVALID_INPUT');
  await fails('gno_list_tags', { collection: 7 }, 'INVALID_INPUT');
  await fails('gno_changes', { since: -1 }, 'INVALID_INPUT');
  await fails('gno_capture', { collection: 'notes' }, 'INVALID_INPUT');
  await fails('gno_add_collection', {}, 'INVALID_INPUT');
  await fails('gno_sync', { gitPull: 1 }, 'INVALID_INPUT');
  await fails('gno_remove_collection', {}, 'INVALID_INPUT');
  await fails('gno_tag', { ref: 'notes/doc-0001.md', tag: 'x', action: 'flip' }, 'INVALID_INPUT');
  await fails('gno_job_status', { jobId: 3 }, 'INVALID_INPUT');
  await fails('gno_links', { ref: 'notes/doc-0001.md', direction: 'up' }, 'INVALID_INPUT');
  await fails('gno_hubs', { metric: 'betweenness' }, 'INVALID_INPUT');
  await fails('gno_rename', { ref: 'notes/doc-0001.md', newPath: '../x.md' }, 'INVALID_PATH');
  await fails('gno_update', { ref: 'notes/nope.md', content: 'x' }, 'NOT_FOUND');
  await fails('gno_list_jobs', { limit: 'all' }, 'INVALID_INPUT');
  await fails('gno_search', { query: 'fox '.repeat(2_600_000) }, 'INVALID_INPUT'); // ~10 MB
  assert.equal(await rpcError(client.callTool({ name: 'gno_nope', arguments: {} })), -32602);
  assert.equal(await rpcError(client.request({ method: 'no/such', params: {} }, {})), -32601);
});

test('write tools', async () => {
  let sc = await ok('gno_capture', { collection: 'notes', title: 'Captured idea', content: '# Idea\n\nAardvarks everywhere.\n' });
  assert.equal(sc.relPath, 'captured-idea.md');
  assert.ok(sc.indexed && sc.docid);
  await fails('gno_capture', { collection: 'notes', path: '../escape.md', content: 'x' }, 'INVALID_PATH');
  await fails('gno_capture', { collection: 'notes', path: '.ssh/x.md', content: 'x' }, 'INVALID_PATH');
  await fails('gno_capture', { collection: 'notes', path: 'captured-idea.md', content: 'x' }, 'CONFLICT');
  await fails('gno_capture', { collection: 'nope', content: 'x' }, 'NOT_FOUND');
  sc = await ok('gno_tag', { ref: 'notes/captured-idea.md', tag: 'ideas' });
  assert.deepEqual(sc.tags, ['ideas']);
  await ok('gno_tag', { ref: 'notes/captured-idea.md', tag: 'ideas', action: 'remove' });
  await fails('gno_tag', { ref: 'notes/captured-idea.md', tag: 'ideas', action: 'remove' }, 'NOT_FOUND');
  sc = await ok('gno_update', { ref: 'notes/captured-idea.md', tags: ['ideas'] });
  assert.ok(sc.indexed);
  sc = await ok('gno_rename', { ref: 'notes/captured-idea.md', newPath: 'ideas/captured-idea.md' });
  assert.equal(sc.uri, 'gno://notes/ideas/captured-idea.md');
  sc = await ok('gno_delete', { ref: 'notes/ideas/captured-idea.md' });
  assert.equal(sc.deleted, true);

  // Progress: notifications arrive, and all before the result.
  const progress = [];
  let resultSeen = false;
  sc = await ok('gno_sync', { collection: 'notes' }, {
    onprogress: (p) => { assert.ok(!resultSeen, 'progress after result'); progress.push(p); },
  });
  resultSeen = true;
  assert.equal(sc.status, 'completed');
  assert.ok(progress.length > 0, 'no progress notifications');
  await fails('gno_sync', { collection: 'nope' }, 'NOT_FOUND');
  await fails('gno_add_collection', { path: '/' }, 'INVALID_PATH');
  await fails('gno_add_collection', { path: join(root, 'missing') }, 'PATH_NOT_FOUND');
  await fails('gno_job_status', { jobId: 'job_nope' }, 'NOT_FOUND');

  makeDocs(join(root, 'extra'), 5, 'extra');
  sc = await ok('gno_add_collection', { path: join(root, 'extra'), name: 'Extra' });
  assert.equal(sc.collection.name, 'extra');
  let job;
  for (let i = 0; i < 500; i++) {
    job = await ok('gno_job_status', { jobId: sc.jobId });
    if (job.status !== 'running') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(job.status, 'completed');
  await fails('gno_add_collection', { path: join(root, 'extra') }, 'DUPLICATE');
  const jobs = await ok('gno_list_jobs', { limit: 5 });
  assert.ok(jobs.recent.length >= 2);
  await ok('gno_remove_collection', { collection: 'extra' });
  await fails('gno_remove_collection', { collection: 'extra' }, 'NOT_FOUND');
});

test('resources: templates, paginated list, read, not found', async () => {
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.equal(resourceTemplates[0].uriTemplate, 'gno://{collection}/{+path}');
  const uris = [];
  let cursor, pages = 0;
  do {
    const page = await client.listResources(cursor ? { cursor } : {});
    for (const r of page.resources) {
      assert.ok(r.uri && r.name);
      uris.push(r.uri);
    }
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  assert.ok(pages >= 2, `one page only (${uris.length} resources)`);
  assert.equal(new Set(uris).size, uris.length);
  assert.ok(uris.length >= DOCS);
  const { contents } = await client.readResource({ uri: uris[0] });
  assert.equal(contents[0].mimeType, 'text/markdown');
  assert.match(contents[0].text, /^<!-- gno:\/\/notes\/.*\n {5}docid: #[0-9a-f]{8}\n[\s\S]*-->\n\n1: /);
  assert.equal(await rpcError(client.readResource({ uri: 'gno://notes/missing.md' })), -32002);
  assert.equal(await rpcError(client.listResources({ cursor: 'bm9wZQ==' })), -32602);
});

test('cancellation: a cancelled request gets no response and the server lives on', async () => {
  makeDocs(join(root, 'bulk'), 1500, 'bulk');
  const ac = new AbortController();
  const jobIds = [];
  const p = client.callTool({ name: 'gno_add_collection', arguments: { path: join(root, 'bulk') } }, undefined, {
    signal: ac.signal,
    onprogress: () => ac.abort('test cancels'),
  });
  await assert.rejects(p);
  await client.ping();
  // The job itself goes on; wait for it, then check nothing stray arrived.
  for (let i = 0; i < 1000; i++) {
    const { active } = await ok('gno_list_jobs', {});
    if (active.length === 0) break;
    jobIds.push(active[0].jobId);
    await new Promise((r) => setTimeout(r, 20));
  }
  await client.ping();
  // A progress notification already on its way when the cancel was sent
  // is a benign race; a response to the cancelled request is not.
  const stray = clientErrors.map(String).filter((e) => !/progress notification for an unknown token/.test(e));
  assert.deepEqual(stray, [], 'client saw protocol errors (a response to a cancelled request?)');
  clientErrors.length = 0;
});

test('no protocol errors and nothing on stderr', () => {
  assert.deepEqual(clientErrors.map(String), []);
  assert.equal(stderr, '', 'gno mcp wrote to stderr without -v');
});

// A mock of the OpenAI Responses API (streaming), for driving the real
// Codex CLI in stopgate's end-to-end tests. It listens on 127.0.0.1 only.
//
//   node mock-openai.mjs SCENARIO.json LOG.jsonl
//
// It prints `listening PORT` on stdout once it accepts connections, and
// appends one JSON line per request to LOG.jsonl: the path, whether it
// was a request of the agent loop (one that offers tools), and the text of
// its last user-role input item.
//
// A scenario is `{"replies": [REPLY, ...]}`. Each agent-loop request
// takes the next REPLY, in order; a REPLY is an array of output items:
// `{"type":"message","text":...}`, `{"type":"function_call","name":...,
// "arguments":{...}}` or `{"type":"custom_tool_call","name":...,
// "input":"..."}` (ids are made up here). When the replies run out, the
// agent gets `Done.`. Any other request gets a short text.
import { createServer } from 'node:http';
import { readFileSync, appendFileSync } from 'node:fs';

const [scenarioPath, logPath] = process.argv.slice(2);
const scenario = JSON.parse(readFileSync(scenarioPath, 'utf8'));
let cursor = 0;
let nextId = 1;

function lastUserText(body) {
  const items = Array.isArray(body.input) ? body.input : [];
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it.type !== 'message' || it.role !== 'user') continue;
    const parts = Array.isArray(it.content) ? it.content : [];
    return parts.map((p) => p.text || '').join('\n');
  }
  return '';
}

function item(spec) {
  const id = nextId++;
  switch (spec.type) {
    case 'function_call':
      return { type: 'function_call', id: `fc_${id}`, call_id: `call_${id}`, name: spec.name,
               arguments: JSON.stringify(spec.arguments || {}), status: 'completed' };
    case 'custom_tool_call':
      return { type: 'custom_tool_call', id: `ctc_${id}`, call_id: `call_${id}`, name: spec.name,
               input: spec.input, status: 'completed' };
    default:
      return { type: 'message', id: `msg_${id}`, role: 'assistant', status: 'completed',
               content: [{ type: 'output_text', text: spec.text, annotations: [] }] };
  }
}

function stream(res, items) {
  const id = `resp_${nextId++}`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
  send({ type: 'response.created', response: { id } });
  for (const it of items) {
    send({ type: 'response.output_item.done', item: it });
  }
  send({ type: 'response.completed', response: { id, usage: {
    input_tokens: 10, input_tokens_details: null, output_tokens: 10,
    output_tokens_details: null, total_tokens: 20 } } });
  res.end();
}

const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => { raw += c; });
  req.on('end', () => {
    let body = {};
    try { body = JSON.parse(raw || '{}'); } catch { body = {}; }
    const agent = req.method === 'POST' && req.url.endsWith('/responses')
      && Array.isArray(body.tools) && body.tools.length > 0;
    appendFileSync(logPath, JSON.stringify({ path: req.url, method: req.method,
      agent_loop: agent, last_user: lastUserText(body) }) + '\n');
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [], models: [] }));
      return;
    }
    if (!req.url.endsWith('/responses')) {
      res.writeHead(404); res.end(); return;
    }
    const specs = agent
      ? (cursor < scenario.replies.length ? scenario.replies[cursor++] : [{ type: 'message', text: 'Done.' }])
      : [{ type: 'message', text: 'ok' }];
    stream(res, specs.map(item));
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});

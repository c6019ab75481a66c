// A mock of the Anthropic Messages API, for driving the real Claude Code
// client in stopgate's end-to-end tests. It listens on 127.0.0.1 only.
//
//   node mock-anthropic.mjs SCENARIO.json LOG.jsonl
//
// It prints `listening PORT` on stdout once it accepts connections, and
// appends one JSON line per request to LOG.jsonl.
//
// A scenario is `{"replies": [REPLY, ...], "agents": {PROMPT: [REPLY,
// ...], ...}}`. Each request of the agent loop (one that offers tools)
// takes the next REPLY of its conversation, in order; a REPLY is an array
// of content blocks, `{"type":"text","text":...}` or
// `{"type":"tool_use","name":...,"input":{...}}` (ids are made up here).
// A conversation is told by its opening prompt, the first user message's
// text outside system reminders: a subagent launched with PROMPT takes
// the replies under `agents`, every other conversation those under
// `replies`. (Claude Code 2.1.332 runs subagents in the background, so
// the main agent's requests and a subagent's interleave.) When a
// conversation's replies run out, it gets `Done.`. Requests that offer
// no tools (titles, summaries, suggestions) get a short text and take no
// reply. `count_tokens`, `GET /v1/models` and `HEAD /` are answered too.
//
// A REPLY may also be `{"after": WHEN, "blocks": [...]}`: it is sent only
// once WHEN holds, which orders the work of conversations that run at
// once. WHEN is `{"conversation": PROMPT, "taken": N}` (that conversation,
// '' for the main one, has taken N replies) or `{"file": PATH, "holds":
// TEXT}` (the file holds TEXT, such as a hook's log line); with
// `"then_ms": N` besides, the reply waits N ms more once it holds. After
// 60 s the reply goes out anyway, logged with `"wait":"timed out"`.
import { createServer } from 'node:http';
import { readFileSync, appendFileSync, existsSync } from 'node:fs';

const [scenarioPath, logPath] = process.argv.slice(2);
const scenario = JSON.parse(readFileSync(scenarioPath, 'utf8'));
const agents = scenario.agents || {};
// The next reply of each conversation, by its opening prompt ('' for the
// main one).
const cursors = new Map();
let nextId = 1;

const WAIT_LIMIT_MS = 60000;

function holds(when) {
  if (when.file !== undefined) {
    return existsSync(when.file) && readFileSync(when.file, 'utf8').includes(when.holds);
  }
  return (cursors.get(when.conversation) || 0) >= when.taken;
}

// Resolve once `when` holds (true), or after the limit (false).
function waitFor(when) {
  const started = Date.now();
  return new Promise((resolve) => {
    const poll = () => {
      if (holds(when)) return setTimeout(() => resolve(true), when.then_ms || 0);
      if (Date.now() - started > WAIT_LIMIT_MS) return resolve(false);
      setTimeout(poll, 20);
    };
    poll();
  });
}

function textOf(content) {
  if (typeof content === 'string') return [content];
  return (content || []).filter((b) => b.type === 'text').map((b) => b.text);
}

// The conversation's opening prompt: the last text of its first user
// message that is not a system reminder.
function openingPrompt(body) {
  const first = (body.messages || []).find((m) => m.role === 'user');
  if (!first) return '';
  const texts = textOf(first.content).filter((t) => !t.startsWith('<system-reminder>'));
  return texts.length ? texts[texts.length - 1].trim() : '';
}

function lastUserText(body) {
  const msgs = body.messages || [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    return (m.content || [])
      .map((b) => (b.type === 'text' ? b.text : b.type === 'tool_result' ? '[tool_result]' : ''))
      .join('\n');
  }
  return '';
}

function sse(res, events) {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  for (const [name, data] of events) {
    res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }
  res.end();
}

function respond(res, body, blocks) {
  const id = `msg_mock_${nextId++}`;
  const model = body.model || 'claude-mock';
  const content = blocks.map((b) =>
    b.type === 'tool_use' ? { id: `toolu_mock_${nextId++}`, ...b } : b,
  );
  const stopReason = content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 10, output_tokens: 10 };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
      id, type: 'message', role: 'assistant', model, content,
      stop_reason: stopReason, stop_sequence: null, usage,
    }));
    return content;
  }
  const events = [[
    'message_start',
    { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } },
  ]];
  content.forEach((b, index) => {
    if (b.type === 'text') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } }]);
    } else {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } }]);
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 10 } }]);
  events.push(['message_stop', { type: 'message_stop' }]);
  sse(res, events);
  return content;
}

const server = createServer((req, res) => {
  let chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    let body = {};
    try { body = raw ? JSON.parse(raw) : {}; } catch { body = {}; }
    const url = new URL(req.url, 'http://127.0.0.1');
    const entry = { method: req.method, path: url.pathname };
    if (req.method === 'HEAD' || req.method === 'GET') {
      appendFileSync(logPath, JSON.stringify(entry) + '\n');
      if (url.pathname === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: [], has_more: false, first_id: null, last_id: null }));
      } else {
        res.writeHead(200);
        res.end();
      }
      return;
    }
    if (url.pathname.endsWith('/count_tokens')) {
      appendFileSync(logPath, JSON.stringify(entry) + '\n');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: 10 }));
      return;
    }
    const agentLoop = Array.isArray(body.tools) && body.tools.length > 0;
    entry.agent_loop = agentLoop;
    entry.last_user = lastUserText(body);
    entry.tools = (body.tools || []).map((t) => t.name);
    if (!agentLoop) {
      entry.reply = respond(res, body, [{ type: 'text', text: 'ok' }]);
      appendFileSync(logPath, JSON.stringify(entry) + '\n');
      return;
    }
    const prompt = openingPrompt(body);
    const key = Object.hasOwn(agents, prompt) ? prompt : '';
    const replies = key ? agents[key] : scenario.replies;
    const cursor = cursors.get(key) || 0;
    entry.conversation = key;
    entry.reply_index = cursor;
    const reply = cursor < replies.length ? replies[cursor] : [{ type: 'text', text: 'Done.' }];
    const send = () => {
      cursors.set(key, cursor + 1);
      entry.reply = respond(res, body, Array.isArray(reply) ? reply : reply.blocks);
      appendFileSync(logPath, JSON.stringify(entry) + '\n');
    };
    if (Array.isArray(reply)) return send();
    waitFor(reply.after).then((held) => {
      entry.wait = held ? 'held' : 'timed out';
      send();
    });
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});

// Slow Spades simulator: each device posts signed webhook requests to the real endpoints
// and shows what the service sends it, read from the local outbox.
"use strict";

const state = { devices: {}, byAddress: {}, last: "", mailTo: "", serviceNumber: "", whatsappNumber: "", quickUntil: 0 };

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function time(ms) {
  return new Date(ms).toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

function scrollDown(list) { list.scrollTop = list.scrollHeight; }

async function postJSON(url, data) {
  const r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(data) });
  if (!r.ok) throw new Error(url + ": HTTP " + r.status);
  return r.json();
}

// Ask the simulator for the exact request the provider would make, then make it ourselves.
// Telegram posts JSON (an update, with the webhook's secret header); Twilio and Mailgun post forms.
async function deliverAsProvider(payload) {
  const signed = await postJSON("sign", payload);
  const json = signed.json !== undefined;
  const r = await fetch(signed.path, {
    method: "POST",
    headers: Object.assign({ "Content-Type": json ? "application/json" : "application/x-www-form-urlencoded" }, signed.headers),
    body: json ? JSON.stringify(signed.json) : new URLSearchParams(signed.form).toString(),
  });
  return { status: r.status, path: signed.path };
}

function addOut(dev, text, extra) {
  const li = el("li", "msg out");
  if (extra && extra.subject) li.append(el("span", "subject", extra.subject));
  if (extra && extra.to) li.append(el("span", "headers", "To: " + extra.to));
  li.append(document.createTextNode(text));
  const meta = el("span", "meta", "sending…");
  li.append(meta);
  li.dataset.status = "pending";
  dev.thread.append(li);
  scrollDown(dev.thread);
  return { li, meta };
}

async function sendFrom(dev, text) {
  text = text.trim();
  if (!text) return;
  if (dev.channel === "telegram") {
    const { li, meta } = addOut(dev, text);
    await postAndShow(li, meta, { channel: "telegram", from: dev.address, body: text });
    return;
  }
  if (dev.channel === "sms" || dev.channel === "whatsapp") {
    const { li, meta } = addOut(dev, text);
    const to = dev.channel === "whatsapp" ? state.whatsappNumber : state.serviceNumber;
    await postAndShow(li, meta, { channel: dev.channel, from: dev.address, to, body: text });
    if (dev.channel === "whatsapp") refreshWindows();  // its message opened the window again
    return;
  }
  const to = dev.toInput.value.trim() || state.mailTo;
  const lastMail = dev.lastMail;
  const subject = lastMail && lastMail.subject ? (/^re:/i.test(lastMail.subject) ? lastMail.subject : "Re: " + lastMail.subject) : "Slow Spades";
  const { li, meta } = addOut(dev, text, { subject, to });
  await postAndShow(li, meta, {
    channel: "email", from: dev.address, recipient: to, body: text, subject,
    quoted: lastMail ? lastMail.body : "", in_reply_to: lastMail ? lastMail.message_id : "",
  });
}

// Post a typed message as the provider would, and show the webhook's answer under its bubble.
async function postAndShow(li, meta, message) {
  try {
    const res = await deliverAsProvider(message);
    meta.textContent = "POST " + res.path + " → " + res.status;
    li.dataset.status = String(res.status);
    if (res.status >= 300) li.classList.add("refused");
    else pollSoon();
  } catch (err) {
    meta.textContent = String(err);
    li.dataset.status = "error";
    li.classList.add("refused");
  }
}

// A tapped inline button: the callback_query Telegram would post, for the message it is on. Its keyboard stays
// until the service's answer to the tap removes it (showTelegram).
async function tap(dev, li, keyboard, button, data) {
  keyboard.querySelectorAll("button").forEach((b) => { b.disabled = true; });
  button.classList.add("pressed");
  try {
    const res = await deliverAsProvider({ channel: "telegram", from: dev.address, tap: data, message_id: li.dataset.messageId });
    keyboard.dataset.status = String(res.status);
    if (res.status < 300) pollSoon();
  } catch (err) {
    keyboard.dataset.status = "error";
  }
}

// A Telegram message with its inline keyboard (rows of buttons), or the answer to a tap: a toast under the message
// tapped, whose keyboard goes.
function showTelegram(dev, li, m) {
  if (m.callback) {
    const tapped = dev.thread.querySelector('[data-message-id="' + m.tgmsg + '"]');
    if (tapped) {
      const keyboard = tapped.querySelector(".keyboard");
      if (keyboard) keyboard.remove();
      tapped.append(el("span", "toast", m.body));
    }
    return false;
  }
  li.dataset.messageId = m.message_id;
  li.append(el("span", "body", m.body));
  li.append(el("span", "meta", "1 message · " + m.chars + " chars · " + time(m.time_ms)));
  if (m.buttons.length) {
    const keyboard = el("div", "keyboard");
    for (const [label, data] of m.buttons) {
      const button = el("button", "", label);
      button.type = "button";
      button.dataset.data = data;
      button.addEventListener("click", () => tap(dev, li, keyboard, button, data));
      keyboard.append(button);
    }
    li.append(keyboard);
  }
  return true;
}

// A WhatsApp message's quick-reply buttons or list items (inside the window): a tap posts its id as Twilio does.
function waButtons(dev, buttons) {
  const row = el("div", "wa-buttons");
  for (const b of buttons) {
    const button = el("button", "wa-button" + (b.list ? " list" : ""), b.title);
    button.type = "button";
    button.dataset.id = b.id;
    button.addEventListener("click", async () => {
      const { li, meta } = addOut(dev, b.title);
      await postAndShow(li, meta, { channel: "whatsapp", from: dev.address, to: state.whatsappNumber, body: b.title,
        tap: b.id, list: b.list });
      refreshWindows();
    });
    row.append(button);
  }
  return row;
}

function showIncoming(m) {
  const dev = state.byAddress[m.to];
  if (!dev) return;
  const li = el("li", "msg in");
  li.dataset.kind = m.kind || "";
  li.dataset.game = m.game || "";
  li.dataset.outbox = m.id || "";
  li.dataset.streamId = m.stream_id;
  if (m.channel === "telegram") {
    if (!showTelegram(dev, li, m)) return;
  } else if (m.channel === "email") {
    li.append(el("span", "subject", m.subject || "(no subject)"));
    if (m.reply_to) li.append(el("span", "headers", "Reply-To: " + m.reply_to));
    li.append(el("span", "body", m.body));
    li.append(el("span", "meta", time(m.time_ms)));
    dev.lastMail = m;
    if (m.reply_to) dev.toInput.value = m.reply_to;
  } else if (m.channel === "whatsapp") {
    // one WhatsApp message however long (up to 1600 characters), in full Unicode; outside the 24-hour window
    // it went as an approved template, whose one variable is this text
    li.dataset.parts = String(m.parts);
    li.dataset.template = m.template || "";
    if (m.template) li.classList.add("template");
    li.append(el("span", "body", m.body));
    const meta = el("span", "meta");
    const how = m.template ? "template " + m.template : (m.parts === 1 ? "1 message" : m.parts + " messages");
    meta.append(el("span", "seg" + (m.template ? " multi" : ""), how),
      document.createTextNode(" · " + m.chars + " chars · " + time(m.time_ms)));
    li.append(meta);
    if (m.buttons && m.buttons.length) li.append(waButtons(dev, m.buttons));
  } else {
    li.dataset.segments = String(m.segments);
    li.append(el("span", "body", m.body));
    const meta = el("span", "meta");
    const seg = el("span", "seg" + (m.segments > 1 ? " multi" : ""), m.segments + (m.segments === 1 ? " segment" : " segments"));
    meta.append(seg, document.createTextNode(" · " + m.encoding + " · " + m.chars + " chars · " + time(m.time_ms)));
    li.append(meta);
  }
  dev.thread.append(li);
  scrollDown(dev.thread);
}

// New messages: asked every 400 ms, and every 100 ms for 5 s after a message is sent, while its answers come
// (the computer's within BOT_DELAY, 3 s): an answer shows about as soon as the service sends it.
let pollTimer = null;
let polling = false;

function pollSoon() {
  state.quickUntil = Date.now() + 5000;
  if (pollTimer !== null) { clearTimeout(pollTimer); pollTimer = setTimeout(poll, 0); }
}

async function poll() {
  pollTimer = null;
  if (polling) return;
  polling = true;
  try {
    const url = "messages" + (state.last ? "?after=" + encodeURIComponent(state.last) : "");
    const r = await fetch(url);
    if (r.ok) {
      const data = await r.json();
      data.messages.forEach(showIncoming);
      if (data.last) state.last = data.last;
      document.body.dataset.polled = "1";
    }
  } catch (err) { /* the server restarts: try again */ }
  polling = false;
  pollTimer = setTimeout(poll, Date.now() < state.quickUntil ? 100 : 400);
}

// Each WhatsApp phone's 24-hour window, by the service's clock: open (and when it closes) or closed.
async function refreshWindows() {
  for (const dev of Object.values(state.devices)) {
    if (dev.channel !== "whatsapp") continue;
    try {
      const r = await fetch("window?address=" + encodeURIComponent(dev.address));
      if (!r.ok) continue;
      const w = await r.json();
      dev.windowEl.textContent = "window " + w.text;
      dev.windowEl.dataset.open = w.open ? "1" : "0";
    } catch (err) { /* the server restarts: try again */ }
  }
}

function showClock(c) {
  document.getElementById("clock-now").textContent = time(c.now_ms);
  document.getElementById("clock-offset").textContent = c.offset_ms ? "(+" + c.offset_hours + " h)" : "";
}

async function refreshClock() {
  try { const r = await fetch("clock"); if (r.ok) showClock(await r.json()); } catch (err) { /* ignore */ }
}

function setupClock() {
  document.getElementById("clock-advance").addEventListener("click", async () => {
    const seconds = Number(document.getElementById("clock-step").value);
    showClock(await postJSON("clock", { seconds }));
    refreshWindows();
  });
  document.getElementById("clock-reset").addEventListener("click", async () => {
    showClock(await postJSON("clock", { reset: true }));
    refreshWindows();
  });
  refreshClock();
  setInterval(refreshClock, 15000);
  refreshWindows();
  setInterval(refreshWindows, 5000);
}

async function main() {
  const params = new URLSearchParams(location.search);
  const cfg = await (await fetch("config?" + params.toString())).json();
  state.mailTo = cfg.mail_to;
  state.serviceNumber = cfg.service_number;
  state.whatsappNumber = cfg.whatsapp_number;
  const root = document.getElementById("devices");
  for (const d of cfg.devices) {
    const tpl = document.getElementById(d.channel === "email" ? "inbox-tpl" : "phone-tpl");
    const node = tpl.content.firstElementChild.cloneNode(true);
    node.id = d.id;
    node.dataset.address = d.address;
    node.querySelector(".label").textContent = d.label;
    node.querySelector(".address").textContent = d.address;
    const dev = { id: d.id, address: d.address, channel: d.channel, node, thread: node.querySelector(".thread"), lastMail: null };
    if (d.channel === "whatsapp") {
      node.classList.add("whatsapp");
      dev.windowEl = el("span", "window", "window …");
      node.querySelector("header").append(dev.windowEl);
      node.querySelector("form [name=body]").placeholder = "WhatsApp message";
    }
    if (d.channel === "telegram") {
      node.classList.add("telegram");
      node.querySelector("form [name=body]").placeholder = "Telegram message";
    }
    const form = node.querySelector("form");
    const body = form.querySelector("[name=body]");
    if (d.channel === "email") {
      dev.toInput = form.querySelector("[name=to]");
      dev.toInput.value = cfg.mail_to;
      body.addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); } });
    }
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = body.value;
      body.value = "";
      sendFrom(dev, text);
    });
    state.devices[d.id] = dev;
    state.byAddress[d.address] = dev;
    root.append(node);
  }
  // the header names the devices shown (their numbers may be overridden in the page's address)
  const phones = cfg.devices.filter((d) => d.channel === "sms");
  if (phones.length > 1) {
    document.getElementById("start-hint").textContent = "NEW " + phones[1].address;
    document.getElementById("start-from").textContent = phones[0].label + " (" + phones[0].address + ")";
  }
  setupClock();
  poll();
}

main();

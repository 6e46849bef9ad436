#!/usr/bin/python3
"""A client written only from docs/PROTOCOL.md and docs/COMMANDS.md, playing the watch to a real
phone-node: it publishes a workout, samples and a record, reads the phone's acknowledgements, sends
one bad frame of every documented code and checks the phone's typed status. The end-to-end test
ForeignClientTests runs it; it exits 0 when everything the pages promise held, 1 otherwise.

Usage: foreign_client.py WATCH_PUBLISH PHONE_PUBLISH PHONE_CONTROL
"""
import json
import sys
import time

import zmq

watch_publish, phone_publish, phone_control = sys.argv[1:4]
ctx = zmq.Context()
problems = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        problems.append(what)


# Sockets: bind where the watch publishes (XPUB acts as PUB); read the phone's publications.
pub = ctx.socket(zmq.XPUB)
pub.bind(watch_publish)
sub = ctx.socket(zmq.SUB)
sub.setsockopt(zmq.SUBSCRIBE, b"ack.")
sub.connect(phone_publish)
req = ctx.socket(zmq.REQ)
req.setsockopt(zmq.RCVTIMEO, 5000)
req.connect(phone_control)


def control(command):
    """COMMANDS.md: one frame out; two back, `ok` or `error`, then the text."""
    req.send_string(command)
    status, text = req.recv_multipart()
    return status.decode(), text.decode()


def status():
    state, text = control("status --json")
    assert state == "ok", text
    return json.loads(text)


poller = zmq.Poller()
poller.register(pub, zmq.POLLIN)
check(dict(poller.poll(20000)).get(pub) == zmq.POLLIN, "the phone subscribed to our publications")
pub.recv()  # the subscription message


def send(topic, envelope, raw=None):
    pub.send_multipart([topic.encode(), raw if raw is not None else json.dumps(envelope).encode()])


def status_until(done, seconds=10):
    """status --json, asked again every 0.1 s until done(status) or `seconds` pass: the phone
    acknowledges before every turn's effects are visible to another socket."""
    deadline = time.time() + seconds
    state = status()
    while time.time() < deadline and not done(state):
        time.sleep(0.1)
        state = status()
    return state


def envelope(channel, kind, stream, seq, body, **override):
    value = {"v": 1, "from": "watch", "stream": stream, "seq": seq, "sentAt": 1000,
             "channel": channel, "kind": kind, "body": body}
    value.update(override)
    return value


def wait_for_ack(topic, stream, up_to, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if not sub.poll(200):
            continue
        got_topic, frame = sub.recv_multipart()
        message = json.loads(frame)
        if got_topic.decode() == topic and message["stream"] == stream and message["body"]["upTo"] >= up_to:
            return message
    return None


def send_until_acknowledged(topic, message, ack_topic, seconds=10):
    """PROTOCOL.md: a sender retransmits until acknowledged. Our SUB may join after the phone's
    first ack went out (the slow joiner), so the first message goes again until its ack is seen."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        send(topic, message)
        ack = wait_for_ack(ack_topic, message["stream"], message["seq"], seconds=0.5)
        if ack is not None:
            return ack
    return None


workout_id = "6F1C2B7E-0D8A-4C55-9E3B-2A1D4C5E6F70"
workout = {"uuid": workout_id, "activity": "running", "start": 0, "end": 1800000,
           "activeDuration": 1800000, "activeEnergy": 320.0, "source": "watch-app"}
uuids = ["6F1C2B7E-0D8A-4C55-9E3B-%012X" % n for n in range(100)]
series = {"type": "heartRate", "source": "watch-app", "uuids": ",".join(uuids),
          "start": [5000 * n for n in range(100)], "value": [100 + n % 50 for n in range(100)]}
objects = envelope("healthkit", "objects", "py.hk", 1, {"workouts": [workout], "series": [series]})
ack = send_until_acknowledged("hk.objects", objects, "ack.hk")
check(ack is not None and ack["from"] == "phone" and ack["seq"] == 0, "hk.objects seq 1 acknowledged (ack.hk, upTo ≥ 1)")

record = {"id": "7A2D3C8F-1E9B-4D66-AF4C-3B2E5D6F7081", "exercise": "Running", "start": 0, "duration": 1800000,
          "calories": 300.0, "healthKitWorkoutID": workout_id, "source": "watch-app"}
send("ck.records", envelope("cloudkit", "records", "py.ck", 1, {"saved": [record]}))
check(wait_for_ack("ack.ck", "py.ck", 1) is not None, "ck.records seq 1 acknowledged (ack.ck)")

# Idempotent apply: the same message again is acknowledged, not applied twice.
send("hk.objects", objects)
check(wait_for_ack("ack.hk", "py.hk", 1) is not None, "a duplicate is acknowledged again")
before = status()
stores = before["stores"]
check(stores["workouts"] == 1 and stores["samples"] == 100, "the phone stored 1 workout and 100 samples once: %s" % stores)
check(stores["records"] + stores["waitingInCloudKit"] == 1, "the record is stored or waiting in CloudKit: %s" % stores)
check(before["channels"]["healthkit"]["duplicatesDropped"] >= 1, "the duplicate counted in duplicatesDropped")

# A valid hello, then one bad frame per documented code.
send("hello", {"v": 1, "from": "watch", "stream": "py-boot", "seq": 0, "sentAt": 1000, "kind": "hello",
               "body": {"streams": {"healthkit": "py.hk", "cloudkit": "py.ck"}}})
bad_sample = dict(series, uuids=uuids[0], start=[0], value=[999])
bad = {
    "frame-count": lambda: pub.send_multipart([b"hk.objects", b"{}", b"extra"]),
    "unknown-topic": lambda: send("hk.unknown", objects),
    "oversized": lambda: send("hk.objects", None, raw=b" " * (4 * 1024 * 1024 + 1)),
    "not-json": lambda: send("hk.objects", None, raw=b'{"v":1,"v":1}'),
    "unsupported-version": lambda: send("hk.objects", dict(objects, v=2)),
    "bad-envelope": lambda: send("hk.objects", dict(objects, seq=1.0)),
    "bad-body": lambda: send("hk.objects", envelope("healthkit", "objects", "py.hk", 2, {"series": [bad_sample]})),
}
for code, sending in bad.items():
    sending()
after = status_until(lambda state: sum(state["rejected"].get(code, 0) for code in bad) >= len(bad))
for code in bad:
    check(after["rejected"].get(code) == 1, "%s refused once, counted under rejected.%s" % (code, code))
check(sorted(after["rejected"]) == sorted(bad), "rejected lists every documented code: %s" % sorted(after["rejected"]))
check(after["stores"] == stores, "nothing of a refused frame was applied")
check(after["channels"]["healthkit"]["received"] == before["channels"]["healthkit"]["received"],
      "refused frames are not counted as received")
state, text = control("ping")
check(state == "ok" and text.startswith("pong phone"), "the phone still answers: %s" % text)

# WatchConnectivity (PROTOCOL.md, wc.… topics): announce the watch app reachable (wc.link), then a
# userInfo transfer; the phone acknowledges it on ack.wc and keeps it for its app.
send("wc.link", envelope("watchconnectivity", "link", "py-boot", 0, {"reachable": True}))
user_info = envelope("watchconnectivity", "userinfo", "py.wc", 1,
                     {"id": "8B3E4D90-2FAC-4E77-B05D-4C3F6E708192", "payload": {"event": "workoutFinished", "uuid": workout_id}})
check(send_until_acknowledged("wc.userinfo", user_info, "ack.wc") is not None, "wc.userinfo seq 1 acknowledged (ack.wc)")
wc = status_until(lambda state: state["watchConnectivity"]["counters"]["userInfoReceived"] >= 1)["watchConnectivity"]
check(wc["counters"]["userInfoReceived"] == 1, "the phone counted the user info: %s" % wc["counters"])
check(wc["peerLink"] is True, "the phone heard our wc.link")
send("wc.context", envelope("watchconnectivity", "context", "py.wc", 2, {"payload": 7}))
check(status_until(lambda state: state["rejected"]["bad-body"] >= 2)["rejected"]["bad-body"] == 2, "a wc.context whose payload is not an object is refused as bad-body")
# WatchConnectivity delivers in order, so the refused one is acknowledged: the next one is not held up.
more = envelope("watchconnectivity", "userinfo", "py.wc", 3, {"id": "9C4F5EA1-30BD-4F88-816E-5D407F8193A3", "payload": {"n": 3}})
ack = send_until_acknowledged("wc.userinfo", more, "ack.wc")
check(ack is not None and ack["body"]["upTo"] == 3, "after a refused wc.context (seq 2), wc.userinfo seq 3 is acknowledged with upTo 3")
received = status_until(lambda state: state["watchConnectivity"]["counters"]["userInfoReceived"] >= 2)
check(received["watchConnectivity"]["counters"]["userInfoReceived"] == 2, "the phone took the user info after the refused one")

print("%d problem(s)" % len(problems), flush=True)
sys.exit(1 if problems else 0)

"""The default world a fresh simulated phone starts with.

Tasks add what they need through their setup patch; this base world supplies the
*distractors* a real phone has — other contacts, threads, events, files — so a policy
must actually find the right record. It is generated deterministically from a seed.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from actionmap.worldstate import (Alarm, Call, CalendarEvent, Contact, DeviceInfo, FileEntry, Message, PhoneNumber,
                                  Settings, Stopwatch, WorldState)

if TYPE_CHECKING:
    from .profiles import DeviceProfile

FIRST = ["Olivia", "Liam", "Emma", "Noah", "Amelia", "Oliver", "Sophia", "Elijah", "Mia", "James", "Harper", "Lucas",
         "Evelyn", "Mateo", "Chloé", "Søren", "Aiko", "Wei", "Priya", "José", "Fatima", "Nikolai", "Zoë", "Kwame"]
LAST = ["Smith", "Garcia", "Chen", "Müller", "Okafor", "Rossi", "Nakamura", "Patel", "Novak", "Silva", "Kowalski",
        "Dubois", "Haddad", "Jensen", "O'Brien", "Ivanova"]
COMPANIES = ["Acme Corp", "Globex", "Initech", "Umbrella Labs", "Stark Industries", "Wayne Enterprises", ""]
BODIES = ["Running 10 min late", "Can you send me the file?", "See you at lunch!", "Happy birthday 🎉",
          "Did you get my email?", "Call me when you're free", "Thanks for yesterday", "The meeting moved to 3pm",
          "晚上一起吃饭吗？", "Don't forget the groceries"]
EVENTS = [("Team standup", "Room 4B"), ("Dentist", "Smile Clinic"), ("Gym", "FitHub"), ("Book club", "Library"),
          ("Flight to Lisbon", "Terminal 2"), ("Project review", "Zoom"), ("Piano lesson", ""), ("Lunch with Mia", "Café Rio")]
FILES = [("Download", "invoice_2026_11.pdf", 184_320), ("Download", "boarding_pass.pdf", 96_004),
         ("Download", "setup.apk", 8_421_376), ("Documents", "resume.docx", 45_210), ("Documents", "notes.txt", 1_024),
         ("Documents", "budget.xlsx", 30_720), ("Pictures", "IMG_2041.jpg", 2_301_112), ("Pictures", "IMG_2042.jpg", 2_114_920),
         ("DCIM/Camera", "PXL_20261101_101500.jpg", 3_402_111), ("Music", "podcast_ep12.mp3", 24_110_080),
         ("Movies", "clip.mp4", 12_582_912)]
CITIES = ["London", "New York"]


def default_world(seed: int = 0, profile: "DeviceProfile | None" = None, flavor: str = "sim") -> WorldState:
    rng = random.Random(f"s2r-world:{seed}")
    now = datetime(2027, 3, 15, 9, 30, 0)
    names: list[str] = []
    while len(names) < 24:
        n = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        if n not in names:
            names.append(n)
    names.sort()
    contacts = []
    for i, n in enumerate(names):
        num = f"+1 {rng.randint(201, 989)} 555 {rng.randint(0, 9999):04d}"
        phones = [PhoneNumber(number=num, label=rng.choice(["mobile", "mobile", "home", "work"]))]
        emails = [f"{n.split()[0].lower()}.{i}@example.com"] if rng.random() < 0.5 else []
        contacts.append(Contact(id=f"c{i + 1}", name=n, phones=phones, emails=emails,
                                company=rng.choice(COMPANIES), starred=rng.random() < 0.15))
    messages = []
    mid = 1
    for t_i, c in enumerate(rng.sample(contacts, 6)):
        base = now - timedelta(hours=3 * t_i + 1)
        for k in range(rng.randint(1, 4)):
            box = "inbox" if k % 2 == 0 else "sent"
            messages.append(Message(id=f"m{mid}", address=c.phones[0].number, body=rng.choice(BODIES), box=box,
                                    read=not (t_i < 2 and box == "inbox"), time=base - timedelta(minutes=7 * k)))
            mid += 1
    events = []
    for i, (title, loc) in enumerate(EVENTS):
        day = now.replace(hour=0, minute=0) + timedelta(days=rng.randint(-5, 20))
        start = day + timedelta(hours=rng.randint(8, 18), minutes=rng.choice([0, 30]))
        events.append(CalendarEvent(id=f"e{i + 1}", title=title, start=start, end=start + timedelta(hours=1), location=loc))
    alarms = [Alarm(id="a1", hour=6, minute=45, enabled=True, label="Wake up", days=["mon", "tue", "wed", "thu", "fri"]),
              Alarm(id="a2", hour=8, minute=0, enabled=False, label="", days=["sat", "sun"])]
    files = [FileEntry(path=f"/sdcard/{d}", kind="dir") for d in
             ["Alarms", "DCIM", "DCIM/Camera", "Documents", "Download", "Movies", "Music", "Notifications", "Pictures",
              "Podcasts", "Ringtones"]]
    for i, (d, name, size) in enumerate(FILES):
        files.append(FileEntry(path=f"/sdcard/{d}/{name}", kind="file", size=size, mtime=now - timedelta(days=i + 1, hours=i)))
    calls = []
    for i in range(8):
        c = rng.choice(contacts)
        kind = rng.choice(["incoming", "outgoing", "missed", "incoming"])
        calls.append(Call(id=f"k{i + 1}", number=c.phones[0].number, name=c.name, kind=kind,
                          time=now - timedelta(hours=5 * i + 2), duration_s=0 if kind == "missed" else rng.randint(20, 900)))
    model = profile.model if profile else "s2r Phone 8"
    manufacturer = profile.manufacturer if profile else "s2r"
    return WorldState(
        time=now,
        settings=Settings(wifi=True, bluetooth=False, airplane_mode=False, mobile_data=True, dark_mode=False,
                          do_not_disturb=False, location=True, auto_rotate=False, flashlight=False,
                          adaptive_brightness=False, brightness=128, screen_off_timeout_ms=60_000, font_scale=1.0,
                          ringer_mode="normal", media_volume=8, device_name=model),
        contacts=contacts, messages=messages, events=sorted(events, key=lambda e: e.start), alarms=alarms, timers=[],
        stopwatch=Stopwatch(), world_clocks=list(CITIES), files=files, calls=calls, dialer_number="",
        calculator_display="0",
        device=DeviceInfo(manufacturer=manufacturer, model=model, android_version="14", sdk=34,
                          build=f"{'S2R1' if flavor == 'sim' else 'AP2A'}.270315.001"),
        clipboard="",
    )

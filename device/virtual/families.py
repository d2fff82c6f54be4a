"""The virtual phone's app families: which packages answer the nine app ids, and how.

Why a table: a phone of the ``aosp`` family carries the AOSP apps (com.android.deskclock, …); a
phone of the ``google`` family is a Pixel, whose apps are Google's (com.google.android.deskclock,
…). Everything the phone says about its apps — ``pm list packages`` / ``pm path``, ``dumpsys
package``, ``cmd package resolve-activity``, what ``am start`` reports, which package a provider row
names as its creator, the ``dumpsys window`` launcher — reads this table through
:attr:`device.virtual.phone.VirtualPhone.family`, never a package literal.

Evidence, per family (every value below is one of these, or says it is not):

* ``aosp`` — the AOSP apps' own manifests (LineageOS mirrors):
  DC  LineageOS/android_packages_apps_DeskClock @ 501626741b616e5e41ad4b316e8cc9d8989a7967 AndroidManifest.xml
      (``.DeskClock`` LAUNCHER; ``com.android.deskclock.HandleApiCalls`` SHOW_ALARMS/SHOW_TIMERS; the alias
      ``com.android.deskclock.HandleSetAlarmApiCalls`` → HandleApiCalls takes SET_ALARM/SET_TIMER;
      ``.worldclock.CitySelectionActivity`` and ``.settings.SettingsActivity`` have no filter and no
      ``exported``: not exported)
  DI  LineageOS/android_packages_apps_Dialer @ f7033c1046818cfbe395b29e8ed1db53776953a2 AndroidManifest.xml
      (``com.android.dialer.main.impl.MainActivity``: LAUNCHER, DIAL, DIAL/VIEW ``tel:``; versionName 23.0,
      versionCode 2900000)
  MS  LineageOS/android_packages_apps_Messaging @ 46d8c06e4aedb90d1f77ffca9e6b513fe3414051 AndroidManifest.xml
      (``.ui.conversationlist.ConversationListActivity`` LAUNCHER; ``.ui.conversation.LaunchConversationActivity``
      SENDTO ``sms:``/``smsto:``/``mms:``/``mmsto:``, which opens ``.ui.conversation.ConversationActivity``)
  CT  LineageOS/android_packages_apps_Contacts @ 41570c7a7ae33052338af7730c7c64f871dc391d AndroidManifest.xml
      (``.activities.PeopleActivity`` LAUNCHER and VIEW ``vnd.android.cursor.dir/contact``;
      ``.activities.ContactEditorActivity`` INSERT ``vnd.android.cursor.dir/contact``; versionName 1.7.34)
  The APK paths are the AOSP build's (``product_specific``/``privileged`` in each app's Android.bp), as the
  phone has always reported them. An app whose manifest names no versionName gets the platform's:
  Soong stamps ``--version-name`` with ``AppsDefaultVersionName()`` (the platform release) and
  ``--version-code`` with the platform SDK (build/soong java/aapt2.go, java/app.go) — so ``14``/``34`` on
  Android 14.

* ``google`` — a Pixel's Google apps:
  PL  ``pm list packages -f`` of Google's own Pixel emulator image (AVD "Pixel_9_36", build
      ``google/sdk_gphone64_x86_64/emu64xa:16/BP22.250325.006``), captured in a public Android-analysis tool's
      test (code index file id 37010020475): ``/product/app/PrebuiltDeskClockGoogle/PrebuiltDeskClockGoogle.apk
      =com.google.android.deskclock``, ``/product/priv-app/PrebuiltBugle/PrebuiltBugle.apk
      =com.google.android.apps.messaging``, ``/product/app/GoogleContacts/GoogleContacts.apk``,
      ``/product/priv-app/GoogleDialer/GoogleDialer.apk``, ``/product/app/CalendarGooglePrebuilt/…``,
      ``/system/priv-app/DocumentsUIGoogle/DocumentsUIGoogle.apk=com.google.android.documentsui``,
      ``/system_ext/priv-app/SettingsGoogle/SettingsGoogle.apk=com.android.settings``,
      ``/system_ext/priv-app/NexusLauncherRelease/NexusLauncherRelease.apk=com.google.android.apps.nexuslauncher``.
      That image carries no Calculator; a Pixel's factory image does:
  GMS kdrag0n/adevtool @ 50b08886a15a35642d031a948f8537de9b900646 config/snippets/gms.yml (the Pixel stock
      image's GMS files: ``product/app/CalculatorGooglePrebuilt/CalculatorGooglePrebuilt.apk``, and the same
      paths as PL for Clock, Calendar, Contacts, Dialer, Messages).
  LA  launcher components as ``am start -n`` takes them on Pixels: ``com.google.android.deskclock/
      com.android.deskclock.DeskClock``, ``com.google.android.calculator/com.android.calculator2.Calculator``,
      ``com.google.android.apps.messaging/.ui.ConversationListActivity``, ``com.google.android.contacts/
      com.android.contacts.activities.PeopleActivity``, ``com.google.android.calendar/
      com.android.calendar.AllInOneActivity`` (an app-start benchmark script, code index file id 71337407645);
      ``com.google.android.dialer/.extensions.GoogleDialtactsActivity`` ("ActivityTaskManager: Displayed
      com.google.android.dialer/.extensions.GoogleDialtactsActivity", file id 12154988334; a launcher
      database's hotseat, file id 71541754726); the Pixel Launcher's ``.NexusLauncherActivity`` and
      DocumentsUI's ``com.android.documentsui.files.FilesActivity`` as the brief of issue 29 and
      actionmap/data/apps.yaml give them.
  IN  intents: Google Clock takes SET_ALARM (and SET_TIMER) in ``com.android.deskclock.HandleSetApiCalls``
      ("Clock app com.google.android.deskclock v9.1 — handles SET_ALARM via
      com.android.deskclock.HandleSetApiCalls", file id 70531329756; "the intent reaches HandleSetApiCalls
      (verified in logcat)", file id 69458113444); ``cmd package resolve-activity --brief -a
      android.intent.action.SENDTO -d sms:…`` answers ``com.google.android.apps.messaging/
      .ui.conversation.LaunchConversationActivity`` with ``match=0x208000`` (file id 69679562495), and the
      conversation it opens is ``realActivity=com.google.android.apps.messaging/
      .ui.conversation.ConversationActivity`` (file id 18062871223).
  Not found: the versionName of each Google app on one Pixel build (only "Clock v9.1" above). The others
  below are marked ``(shape only)``: a string of the form the app publishes, so that ``dumpsys package``
  has a versionName, and no claim about a real build. Google's apps are closed source, so their requested
  permissions are not modelled (``requested=None``: ``pm grant`` treats every permission as requested).
  ``HandleApiCalls`` for SHOW_ALARMS/SHOW_TIMERS and Contacts' editor/details class names are AOSP's,
  which Google's apps keep for their entry points (LA); no capture of those two was found.

On a Pixel, DocumentsUI's launcher entry is hidden: packages/apps/DocumentsUI
``src/com/android/documentsui/PreBootReceiver.java`` ("Do not allow LauncherActivity to be enabled for S+")
switches the ``LauncherActivity`` alias off at boot, and "Files" on the home screen is Files by Google; so
the google family's ``hidden_launcher`` default is DocumentsUI (:class:`device.virtual.knobs.PhoneKnobs`),
whose exported ``FilesActivity`` still starts by its component.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

__all__ = ["AppPackage", "Family", "FAMILIES", "FAMILY_NAMES", "family", "INTENT_KINDS"]

_P = "android.permission."

#: Intent kinds the table resolves (what ``am start`` / ``cmd package resolve-activity`` look up).
INTENT_KINDS: tuple[str, ...] = ("set_alarm", "set_timer", "show_alarms", "dial", "sendto", "insert_contact",
                                 "view_contacts", "calendar", "settings", "home")


@dataclass(frozen=True)
class AppPackage:
    """One app id's package on a phone of one family."""

    app: str
    package: str
    #: the launcher activity as ``am``/``cmd package`` print it after the ``/`` (``.X`` or a full class)
    launcher: str
    apk: str
    #: other declared activities ``am start -n`` accepts (same form)
    activities: tuple[str, ...] = ()
    #: declared activities that are not exported (no filter, no ``android:exported="true"``)
    not_exported: tuple[str, ...] = ()
    #: None: the platform's (Soong's AppsDefaultVersionName / platform SDK)
    version_name: str | None = None
    version_code: int | None = None
    #: runtime permissions the manifest asks for (None: not modelled, every one counts as asked)
    requested: frozenset[str] | None = None
    #: world fields ``pm clear`` of this package wipes
    clears: tuple[str, ...] = ()

    def short(self, activity: str) -> str:
        """An activity in the form ``am`` prints after ``package/``."""
        return activity[len(self.package):] if activity.startswith(self.package + ".") else activity

    def full(self, activity: str) -> str:
        """A fully qualified class name."""
        return self.package + activity if activity.startswith(".") else activity

    def declares(self, activity: str) -> bool:
        short = self.short(activity)
        return short == self.launcher or short in self.activities or self.full(short) in (
            self.full(a) for a in (self.launcher, *self.activities))

    def exported(self, activity: str) -> bool:
        short = self.short(activity)
        return not any(self.full(short) == self.full(a) for a in self.not_exported)


@dataclass(frozen=True)
class Family:
    """A phone family: its apps and what its intents resolve to."""

    name: str
    #: (manufacturer, brand) the phone reports; None: its profile's
    identity: tuple[str, str] | None
    apps: Mapping[str, AppPackage]
    #: intent kind → (app id, activity ``resolve-activity`` prints)
    resolves: Mapping[str, tuple[str, str]]
    #: intent kind → activity ``am start -W`` reports when it differs (an alias's target, a trampoline's end)
    starts: Mapping[str, str] = field(default_factory=dict)
    #: packages installed without a launcher entry by default
    hidden_launcher: tuple[str, ...] = ()

    @property
    def packages(self) -> dict[str, str]:
        """app id → package."""
        return {a: p.package for a, p in self.apps.items()}

    @property
    def package_apps(self) -> dict[str, str]:
        """package → app id."""
        return {p.package: a for a, p in self.apps.items()}

    def by_package(self, package: str | None) -> AppPackage | None:
        for p in self.apps.values():
            if p.package == package:
                return p
        return None

    def main_activity(self, package: str | None) -> str | None:
        p = self.by_package(package)
        return p.launcher if p is not None else None

    def resolve(self, kind: str) -> tuple[str, str] | None:
        """(package, activity) ``resolve-activity`` names for an intent kind."""
        hit = self.resolves.get(kind)
        if hit is None:
            return None
        app, act = hit
        return self.apps[app].package, act

    def started(self, kind: str) -> tuple[str, str] | None:
        """(package, activity) ``am start -W`` reports for an intent kind."""
        hit = self.resolve(kind)
        if hit is None:
            return None
        return hit[0], self.starts.get(kind, hit[1])


def _ro(d: dict) -> Mapping:  # type: ignore[type-arg]
    return MappingProxyType(d)


# ------------------------------------------------------------------------------------------- aosp
_AOSP_APPS = {
    "launcher": AppPackage("launcher", "com.android.launcher3", ".uioverride.QuickstepLauncher",
                           "/system_ext/priv-app/Launcher3QuickStep/Launcher3QuickStep.apk",
                           activities=(".Launcher", ".uioverride.QuickstepLauncher")),
    "settings": AppPackage("settings", "com.android.settings", ".Settings",
                           "/system_ext/priv-app/Settings/Settings.apk",
                           activities=(".SubSettings", ".Settings$WifiSettingsActivity",
                                       ".Settings$BluetoothSettingsActivity", ".Settings$DisplaySettingsActivity",
                                       ".Settings$SoundSettingsActivity", ".Settings$DateTimeSettingsActivity",
                                       ".Settings$LocationSettingsActivity"),
                           not_exported=(".SubSettings",)),
    "clock": AppPackage("clock", "com.android.deskclock", ".DeskClock", "/product/app/DeskClock/DeskClock.apk",
                        activities=(".alarms.AlarmEditActivity", ".worldclock.CitySelectionActivity",
                                    ".settings.SettingsActivity", ".HandleApiCalls", ".HandleSetAlarmApiCalls",
                                    ".timer.TimerActivity"),
                        not_exported=(".worldclock.CitySelectionActivity",),
                        requested=frozenset(_P + n for n in (
                            "RECEIVE_BOOT_COMPLETED", "WAKE_LOCK", "VIBRATE", "DISABLE_KEYGUARD",
                            "READ_EXTERNAL_STORAGE", "READ_MEDIA_AUDIO", "FOREGROUND_SERVICE", "SCHEDULE_EXACT_ALARM",
                            "POST_NOTIFICATIONS")),
                        clears=("alarms", "timers", "stopwatch", "world_clocks")),
    "contacts": AppPackage("contacts", "com.android.contacts", ".activities.PeopleActivity",
                           "/product/priv-app/Contacts/Contacts.apk",
                           activities=(".activities.QuickContactActivity", ".activities.ContactEditorActivity",
                                       ".activities.CompactContactEditorActivity"),
                           version_name="1.7.34", version_code=10734),
    "messages": AppPackage("messages", "com.android.messaging", ".ui.conversationlist.ConversationListActivity",
                           "/product/app/messaging/messaging.apk",
                           activities=(".ui.conversation.ConversationActivity",
                                       ".ui.conversation.LaunchConversationActivity"),
                           requested=frozenset(_P + n for n in (
                               "SEND_SMS", "RECEIVE_SMS", "READ_SMS", "RECEIVE_MMS", "RECEIVE_WAP_PUSH",
                               "READ_CONTACTS", "READ_PHONE_STATE", "CALL_PHONE", "RECORD_AUDIO", "CAMERA",
                               "ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION", "READ_EXTERNAL_STORAGE",
                               "WRITE_EXTERNAL_STORAGE", "INTERNET", "VIBRATE", "WAKE_LOCK", "RECEIVE_BOOT_COMPLETED",
                               "ACCESS_NETWORK_STATE", "CHANGE_NETWORK_STATE", "POST_NOTIFICATIONS"))),
    "calendar": AppPackage("calendar", "com.android.calendar", ".AllInOneActivity",
                           "/product/app/Calendar/Calendar.apk"),
    "files": AppPackage("files", "com.android.documentsui", ".files.FilesActivity",
                        "/system/priv-app/DocumentsUI/DocumentsUI.apk"),
    "calculator": AppPackage("calculator", "com.android.calculator2", ".Calculator",
                             "/product/app/Calculator/Calculator.apk", requested=frozenset(),
                             clears=("calculator_display",)),
    "phone": AppPackage("phone", "com.android.dialer", ".main.impl.MainActivity",
                        "/product/priv-app/Dialer/Dialer.apk",
                        activities=(".DialtactsActivity", ".app.DialtactsActivity"),
                        version_name="23.0", version_code=2900000,
                        requested=frozenset(_P + n for n in (
                            "CALL_PHONE", "READ_CONTACTS", "WRITE_CONTACTS", "READ_CALL_LOG", "WRITE_CALL_LOG",
                            "READ_PHONE_STATE", "MODIFY_PHONE_STATE", "ADD_VOICEMAIL", "INTERNET", "VIBRATE",
                            "WAKE_LOCK", "POST_NOTIFICATIONS")),
                        clears=("dialer_number",)),
}

AOSP = Family(
    name="aosp", identity=None, apps=_ro(_AOSP_APPS),
    resolves=_ro({
        "set_alarm": ("clock", "com.android.deskclock.HandleSetAlarmApiCalls"),  # DC: the alias
        "set_timer": ("clock", "com.android.deskclock.HandleSetAlarmApiCalls"),
        "show_alarms": ("clock", ".HandleApiCalls"),
        "dial": ("phone", ".main.impl.MainActivity"),  # DI
        "sendto": ("messages", ".ui.conversation.LaunchConversationActivity"),  # MS
        "insert_contact": ("contacts", ".activities.ContactEditorActivity"),  # CT
        "view_contacts": ("contacts", ".activities.PeopleActivity"),
        "calendar": ("calendar", ".AllInOneActivity"),
        "settings": ("settings", ".Settings"),
        "home": ("launcher", ".uioverride.QuickstepLauncher"),
    }),
    # an alias starts its target (ActivityRecord takes ActivityInfo.targetActivity); the SENDTO
    # trampoline ends in the conversation
    starts=_ro({"set_alarm": ".HandleApiCalls", "set_timer": ".HandleApiCalls",
                "sendto": ".ui.conversation.ConversationActivity"}),
)

# ----------------------------------------------------------------------------------------- google
_GOOGLE_APPS = {
    "launcher": AppPackage("launcher", "com.google.android.apps.nexuslauncher", ".NexusLauncherActivity",
                           "/system_ext/priv-app/NexusLauncherRelease/NexusLauncherRelease.apk"),  # PL
    "settings": AppPackage("settings", "com.android.settings", ".Settings",
                           "/system_ext/priv-app/SettingsGoogle/SettingsGoogle.apk",  # PL
                           activities=_AOSP_APPS["settings"].activities,
                           not_exported=_AOSP_APPS["settings"].not_exported),
    "clock": AppPackage("clock", "com.google.android.deskclock", "com.android.deskclock.DeskClock",
                        "/product/app/PrebuiltDeskClockGoogle/PrebuiltDeskClockGoogle.apk",  # PL, GMS
                        activities=("com.android.deskclock.HandleApiCalls", "com.android.deskclock.HandleSetApiCalls",
                                    "com.android.deskclock.settings.SettingsActivity",
                                    "com.android.deskclock.worldclock.CitySelectionActivity"),
                        version_name="9.1", version_code=910,  # IN ("v9.1"); the code: shape only
                        clears=("alarms", "timers", "stopwatch", "world_clocks")),
    "contacts": AppPackage("contacts", "com.google.android.contacts",
                           "com.android.contacts.activities.PeopleActivity",
                           "/product/app/GoogleContacts/GoogleContacts.apk",  # PL, GMS
                           activities=("com.android.contacts.activities.ContactEditorActivity",
                                       "com.android.contacts.quickcontact.QuickContactActivity"),
                           version_name="4.30.27.621327093", version_code=3275560),  # shape only
    "messages": AppPackage("messages", "com.google.android.apps.messaging", ".ui.ConversationListActivity",
                           "/product/priv-app/PrebuiltBugle/PrebuiltBugle.apk",  # PL, GMS
                           activities=(".ui.conversation.LaunchConversationActivity",
                                       ".ui.conversation.ConversationActivity"),
                           version_name="messages.android_20240417_00_RC00.phone_dynamic",  # shape only
                           version_code=212920000),
    "calendar": AppPackage("calendar", "com.google.android.calendar", "com.android.calendar.AllInOneActivity",
                           "/product/app/CalendarGooglePrebuilt/CalendarGooglePrebuilt.apk",  # PL, GMS
                           version_name="2024.13.0-621283004-release", version_code=2016597802),  # shape only
    "files": AppPackage("files", "com.google.android.documentsui", "com.android.documentsui.files.FilesActivity",
                        "/system/priv-app/DocumentsUIGoogle/DocumentsUIGoogle.apk"),  # PL
    "calculator": AppPackage("calculator", "com.google.android.calculator", "com.android.calculator2.Calculator",
                             "/product/app/CalculatorGooglePrebuilt/CalculatorGooglePrebuilt.apk",  # GMS
                             version_name="8.6 (604484627)", version_code=86000000,  # shape only
                             clears=("calculator_display",)),
    "phone": AppPackage("phone", "com.google.android.dialer", ".extensions.GoogleDialtactsActivity",
                        "/product/priv-app/GoogleDialer/GoogleDialer.apk",  # PL, GMS
                        activities=("com.android.dialer.main.impl.MainActivity",),
                        version_name="131.0.631134321-publicbeta-pixel2023", version_code=10793050,  # shape only
                        clears=("dialer_number",)),
}

GOOGLE = Family(
    name="google", identity=("Google", "google"), apps=_ro(_GOOGLE_APPS),
    resolves=_ro({
        "set_alarm": ("clock", "com.android.deskclock.HandleSetApiCalls"),  # IN
        "set_timer": ("clock", "com.android.deskclock.HandleSetApiCalls"),  # IN
        "show_alarms": ("clock", "com.android.deskclock.HandleApiCalls"),  # AOSP's name (no capture found)
        "dial": ("phone", ".extensions.GoogleDialtactsActivity"),  # LA
        "sendto": ("messages", ".ui.conversation.LaunchConversationActivity"),  # IN
        "insert_contact": ("contacts", "com.android.contacts.activities.ContactEditorActivity"),  # AOSP's name
        "view_contacts": ("contacts", "com.android.contacts.activities.PeopleActivity"),  # LA
        "calendar": ("calendar", "com.android.calendar.AllInOneActivity"),  # LA
        "settings": ("settings", ".Settings"),
        "home": ("launcher", ".NexusLauncherActivity"),
    }),
    starts=_ro({"sendto": ".ui.conversation.ConversationActivity"}),  # IN: realActivity after SENDTO
    hidden_launcher=("com.google.android.documentsui",),
)

FAMILIES: Mapping[str, Family] = _ro({"aosp": AOSP, "google": GOOGLE})
FAMILY_NAMES: tuple[str, ...] = tuple(FAMILIES)


def family(name: str) -> Family:
    """The family called ``name``; ``ValueError`` naming the families there are."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise ValueError(f"unknown family {name!r}; the families are: {', '.join(FAMILY_NAMES)}") from None

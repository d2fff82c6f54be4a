// The `google` flavor: the nine apps as a Pixel on Android 14/15 ships them (Google Clock,
// Google Messages, Google Contacts, Google Calendar, DocumentsUI as com.google.android.documentsui,
// Google Calculator, Google Dialer, Settings, Pixel Launcher). Each module registers its screens
// over the base app's with registerFlavor('google', appId, {...}); the world model is shared.
import './clock.js';
import './messages.js';
import './contacts.js';
import './phone.js';
import './calendar.js';
import './calculator.js';
import './files.js';
import './settings.js';
import './launcher.js';

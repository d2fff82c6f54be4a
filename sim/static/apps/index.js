// Every app the phone has. Each module calls registerApp() when imported; the launcher
// shows them in this order.
import { registerApp } from '../os.js';
import './contacts.js';
import './phone.js';
import './messages.js';
import './clock.js';
import './calendar.js';
import './calculator.js';
import './files.js';
import './settings.js';

registerApp({ id: 'launcher', label: 'Home', pkg: 'com.android.launcher3', icon: '⌂', root: { s: 'home', p: {} }, screens: {},
  activity: () => 'com.android.launcher3/.uioverride.QuickstepLauncher' });

// Flavors that model another vendor's apps register their screens over the base apps' (os.js
// registerFlavor); imported last so that every base app exists first.
import './google/index.js';

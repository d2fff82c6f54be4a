// Every app the phone has. Each module calls registerApp() when imported.
import { registerApp } from '../os.js';
import './settings.js';

registerApp({ id: 'launcher', label: 'Home', pkg: 'com.android.launcher3', icon: '⌂', root: { s: 'home', p: {} }, screens: {},
  activity: () => 'com.android.launcher3/.uioverride.QuickstepLauncher' });

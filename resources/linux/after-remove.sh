#!/bin/bash
# Capture Desk deb post-remove script (electron-builder `deb.afterRemove`).
# Setting afterRemove replaces electron-builder's default script, so this is its default
# (node_modules/app-builder-lib/templates/linux/after-remove.tpl, v26.17) followed by removing the
# udev rule that after-install.sh installed. Only dollar-brace macros electron-builder knows may
# appear here; shell variables are written as plain $NAME.

# Delete the link to the binary
# update-alternatives --remove <name> <path>: 'path' must be the registered alternative binary,
# not the generic symlink — see https://man7.org/linux/man-pages/man1/update-alternatives.1.html
# Here that is the `capture-desk` launcher (after-install.sh registers it, not the GUI binary).
if type update-alternatives >/dev/null 2>&1; then
    update-alternatives --remove '${executable}' '/opt/${sanitizedProductName}/resources/bin/${executable}'
else
    rm -f '/usr/bin/${executable}'
fi

APPARMOR_PROFILE_DEST='/etc/apparmor.d/${executable}'

# Remove and unload apparmor profile.
if [ -f "$APPARMOR_PROFILE_DEST" ]; then
  # Unload the profile from the running kernel before deleting the file so the
  # policy is not left enforced until the next reboot.  Mirror the chroot guard
  # used in the after-install script — live AppArmor operations are not
  # meaningful inside a chroot.
  # https://wiki.debian.org/AppArmor/HowToUse
  if apparmor_status --enabled > /dev/null 2>&1; then
    if ! { [ -x '/usr/bin/ischroot' ] && /usr/bin/ischroot; } && hash apparmor_parser 2>/dev/null; then
      apparmor_parser --remove "$APPARMOR_PROFILE_DEST" || true
    fi
  fi
  rm -f "$APPARMOR_PROFILE_DEST"
fi
# --- Capture Desk: remove the udev rule on remove/purge (not on upgrade: the new version's
# after-install copies it again anyway) ---
case "$1" in
  remove|purge|0)
    if [ -f /etc/udev/rules.d/99-capture-desk.rules ]; then
      rm -f /etc/udev/rules.d/99-capture-desk.rules || true
      if command -v udevadm >/dev/null 2>&1; then
        udevadm control --reload-rules >/dev/null 2>&1 || true
      fi
    fi
    ;;
esac

exit 0

#!/bin/sh
# usage: check_exports.sh LIBFRUGAL PLUGIN...
# Fails when libfrugal exports a symbol not named frugal_*, when a plugin
# exports anything but frugal_plugin_init_v2, or when a plugin needs a
# frugal_* symbol (plugins must reach the core only through the host table).
set -u
status=0
lib=$1
shift

defined() { nm -D --defined-only "$1" | awk '$2 != "A" { print $3 }'; }

bad=$(defined "$lib" | grep -v '^frugal_' || true)
count=$(defined "$lib" | grep -c '^frugal_' || true)
if [ -n "$bad" ]; then
  echo "FAIL: $lib exports symbols outside frugal_*:"; echo "$bad"; status=1
elif [ "$count" -lt 10 ]; then
  echo "FAIL: $lib exports only $count frugal_* symbols; the C API is missing"; status=1
else
  echo "ok: $lib exports $count symbols, all frugal_*"
fi
soname=$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
case "$soname" in
  libfrugal.so.[0-9]*) echo "ok: SONAME $soname" ;;
  *) echo "FAIL: $lib SONAME is '$soname', expected libfrugal.so.<ABI major>"; status=1 ;;
esac

for plugin in "$@"; do
  exports=$(defined "$plugin" | sort | tr '\n' ' ')
  if [ "$exports" != "frugal_plugin_init_v2 " ]; then
    echo "FAIL: $plugin exports '$exports'; expected exactly frugal_plugin_init_v2"; status=1
  else
    echo "ok: $plugin exports only frugal_plugin_init_v2"
  fi
  needs=$(nm -D --undefined-only "$plugin" | awk '{ print $2 }' | grep '^frugal_' || true)
  if [ -n "$needs" ]; then
    echo "FAIL: $plugin needs libfrugal symbols: $needs"; status=1
  fi
  if readelf -d "$plugin" | grep -q 'libfrugal'; then
    echo "FAIL: $plugin links libfrugal"; status=1
  fi
done
exit $status

#!/usr/bin/env bash
# The oracle for the documentation site: Debian's WordPress (6.1) under Apache + mod_php on a
# loopback port, against the machine's MariaDB (127.0.0.1:3306, root, no password), pretty
# permalinks (/%year%/%monthnum%/%day%/%postname%/, as ours), Asia/Shanghai, one user of every role with an application password.
# Idempotent: a second run drops and recreates the site's database (a clean oracle every time).
# Prints the users' credentials as JSON on the last line (the capture script reads it).
# Environment: WP_ORACLE_PORT (default 8089), WP_ORACLE_DB (default emutrack_wp_oracle).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
port="${WP_ORACLE_PORT:-8089}"
dbname="${WP_ORACLE_DB:-emutrack_wp_oracle}"
state="/var/lib/emutrack-wp-oracle"
config_name="emutrack-oracle"

missing=()
for pkg in wordpress apache2 libapache2-mod-php php-mysql php-cli; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

mkdir -p "$state"
php_module="$(ls /usr/lib/apache2/modules/libphp*.so | head -n 1)"

# Debian's wp-config.php reads /etc/wordpress/config-$WORDPRESS_CONFIG.php (SetEnv below; the
# PHP installer sets it too). WP_ENVIRONMENT_TYPE local: application passwords without HTTPS.
cat >"/etc/wordpress/config-${config_name}.php" <<PHP
<?php
define('DB_NAME', '${dbname}');
define('DB_USER', 'root');
define('DB_PASSWORD', '');
define('DB_HOST', '127.0.0.1:3306');
define('WP_HOME', 'http://127.0.0.1:${port}');
define('WP_SITEURL', 'http://127.0.0.1:${port}');
define('WP_ENVIRONMENT_TYPE', 'local');
define('WP_CONTENT_DIR', '/var/lib/wordpress/wp-content');
define('DISABLE_WP_CRON', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
\$table_prefix = 'wp_';
PHP

cat >"$state/httpd.conf" <<CONF
ServerRoot /etc/apache2
ServerName 127.0.0.1
Listen 127.0.0.1:${port}
PidFile ${state}/apache.pid
ErrorLog ${state}/error.log
LogLevel warn
User www-data
Group www-data
LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule dir_module /usr/lib/apache2/modules/mod_dir.so
LoadModule mime_module /usr/lib/apache2/modules/mod_mime.so
LoadModule env_module /usr/lib/apache2/modules/mod_env.so
LoadModule php_module ${php_module}
TypesConfig /etc/mime.types
StartServers 2
MaxRequestWorkers 8
DocumentRoot /usr/share/wordpress
DirectoryIndex index.php
SetEnv WORDPRESS_CONFIG ${config_name}
<Directory />
  Require all denied
  AllowOverride None
</Directory>
<Directory /usr/share/wordpress>
  Require all granted
  # Pretty permalinks without mod_rewrite: anything that is not a file goes to index.php.
  FallbackResource /index.php
</Directory>
<FilesMatch "\.php$">
  SetHandler application/x-httpd-php
</FilesMatch>
CONF

if [ -f "$state/apache.pid" ] && kill -0 "$(cat "$state/apache.pid")" 2>/dev/null; then
  kill "$(cat "$state/apache.pid")"
  for _ in $(seq 50); do kill -0 "$(cat "$state/apache.pid" 2>/dev/null)" 2>/dev/null || break; sleep 0.1; done
fi

mysql -h 127.0.0.1 -P 3306 -u root -e "DROP DATABASE IF EXISTS \`${dbname}\`; CREATE DATABASE \`${dbname}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci;"
mkdir -p /var/lib/wordpress/wp-content/uploads
chown -R www-data:www-data /var/lib/wordpress/wp-content/uploads

users_json="$(WP_ORACLE_PORT="$port" php "$here/install.php" "$config_name")"

apache2 -f "$state/httpd.conf" -k start
for _ in $(seq 100); do
  curl -fsS -o /dev/null "http://127.0.0.1:${port}/wp-json/" && break
  sleep 0.2
done
echo "$users_json"

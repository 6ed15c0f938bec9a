<?php
// Installs the oracle WordPress (run by setup-wordpress.sh with `php install.php CONFIG_NAME`):
// the site, its settings (those of the documentation site: Asia/Shanghai, posts on the front
// page, pretty permalinks), and one user of every role with an application password.
// Prints {"users": {"administrator": {"id", "username", "email", "password"}, ...}}.
$port = getenv('WP_ORACLE_PORT') ?: '8089';
$_SERVER['WORDPRESS_CONFIG'] = $argv[1];
$_SERVER['HTTP_HOST'] = '127.0.0.1:' . $port;
$_SERVER['SERVER_NAME'] = '127.0.0.1';
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';
define('WP_INSTALLING', true);
require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/user.php';

ob_start();
wp_install('emutrack oracle', 'admin', 'admin@oracle.test', true, '', 'admin-password-' . wp_generate_password(12, false));
ob_end_clean();
// The site's own structure (day and name, as WordPress's installer picks with rewrites on).
update_option('permalink_structure', '/%year%/%monthnum%/%day%/%postname%/');
update_option('timezone_string', 'Asia/Shanghai');
update_option('gmt_offset', '');
update_option('show_on_front', 'posts');
update_option('WPLANG', '');
flush_rewrite_rules(false);
// An empty site, as ours starts: no sample post, page, comment or privacy-policy draft.
foreach (get_posts(['post_type' => 'any', 'post_status' => 'any', 'numberposts' => -1]) as $p) wp_delete_post($p->ID, true);
update_option('wp_page_for_privacy_policy', 0);
// The default category as a Chinese-language install names it (Debian ships no language packs).
wp_update_term((int) get_option('default_category'), 'category', ['name' => '未分类']);

$roles = ['administrator', 'editor', 'author', 'contributor', 'subscriber'];
$out = [];
foreach ($roles as $role) {
  $login = $role === 'administrator' ? 'admin' : $role . '1';
  $user = get_user_by('login', $login);
  $id = $user ? $user->ID : wp_insert_user([
    'user_login' => $login,
    'user_email' => $login . '@oracle.test',
    'user_pass' => wp_generate_password(20),
    'role' => $role,
    'display_name' => $login,
  ]);
  if (is_wp_error($id)) { fwrite(STDERR, $id->get_error_message() . "\n"); exit(1); }
  // wp_install gives the first user the site's address as its URL; ours have none.
  if ($role === 'administrator') wp_update_user(['ID' => $id, 'display_name' => 'admin', 'user_url' => '']);
  $created = WP_Application_Passwords::create_new_application_password($id, ['name' => 'oracle']);
  if (is_wp_error($created)) { fwrite(STDERR, $created->get_error_message() . "\n"); exit(1); }
  $out[$role] = ['id' => $id, 'username' => $login, 'email' => $login . '@oracle.test', 'password' => $created[0]];
}
echo json_encode(['users' => $out]), "\n";

package install

// The systemd units of toolguard serve in system mode. packaging/systemd/
// holds the same text (TestSystemdUnitsShipped), for packagers.

const serviceUnit = `# toolguard serve in system mode: approvals, grants and the audit log, held by
# the toolguard account, reached by hooks over /run/toolguard/serve.sock and
# identified by their peer credentials (docs/install.md, "System mode").
[Unit]
Description=toolguard approval and audit server (system mode)
Documentation=https://github.com/toolguard/toolguard/blob/main/docs/install.md
Requires=toolguard.socket
After=toolguard.socket

[Service]
Type=simple
User=toolguard
Group=toolguard
# /var/lib/toolguard (0700, the toolguard account's): requests, grants and the
# audit log; toolguard/ in it (XDG_CONFIG_HOME) the approver key, created on
# first start, the tokens (serve.tokens) and the sign-in link (serve.login).
StateDirectory=toolguard
StateDirectoryMode=0700
Environment=HOME=/var/lib/toolguard XDG_CONFIG_HOME=/var/lib/toolguard XDG_STATE_HOME=/var/lib/toolguard
ExecStart=/usr/local/lib/toolguard/toolguard-serve serve --socket /run/toolguard/serve.sock --peer-credentials --approver-group toolguard-approvers --policy /etc/toolguard/policy.toml --state-dir /var/lib/toolguard
Restart=on-failure
UMask=0077
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
RestrictAddressFamilies=AF_UNIX
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
MemoryDenyWriteExecute=yes
SystemCallArchitectures=native
CapabilityBoundingSet=
AmbientCapabilities=

[Install]
WantedBy=multi-user.target
`

const socketUnit = `# The socket hooks reach toolguard serve on. Any local account may connect:
# the server gives each caller the role of its uid (the hook role records,
# uses and appends; root and toolguard-approvers approve).
[Unit]
Description=toolguard approval and audit server socket

[Socket]
ListenStream=/run/toolguard/serve.sock
SocketUser=toolguard
SocketGroup=toolguard
SocketMode=0666
DirectoryMode=0755
Accept=no

[Install]
WantedBy=sockets.target
`

// SystemdUnits are the unit files by name.
func SystemdUnits() map[string]string {
	return map[string]string{"toolguard.service": serviceUnit, "toolguard.socket": socketUnit}
}

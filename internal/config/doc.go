// Package config reads and writes pi's configuration files under the agent directory (~/.pi/agent or
// PI_CODING_AGENT_DIR): settings.json, models.json, auth.json. It knows the provider vocabulary and
// nothing of the loop, the harness or any UI.
package config

#!/bin/sh
# Writes prometheusrule.yaml's content to stdout: the header below, then refresher-rules.yml's
# groups (its comment lines left out), indented under spec:.
set -eu
cd "$(dirname "$0")"
cat <<'HEADER'
# The alert rules of refresher-rules.yml for the Prometheus Operator. Generated, do not edit:
# edit refresher-rules.yml, then, from deploy/monitoring,
#   sh generate-prometheusrule.sh > prometheusrule.yaml
# (MonitoringManifestsTest fails while the two differ).
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: refresher
  labels:
    app.kubernetes.io/name: refresher
    app.kubernetes.io/component: monitoring
    app.kubernetes.io/part-of: refresher
spec:
HEADER
grep -v '^#' refresher-rules.yml | sed 's/^/  /'

"""The official Python client's usual write calls against kubesim.

Usage: clients.py KUBECONFIG NAMESPACE
Prints one JSON object with what each call saw; the e2e test checks it.
"""
import json
import sys

from kubernetes import client, config, dynamic
from kubernetes.client.rest import ApiException


def main():
    config.load_kube_config(config_file=sys.argv[1])
    ns = sys.argv[2]
    core = client.CoreV1Api()
    apps = client.AppsV1Api()
    out = {}

    # replace_namespaced_config_map after a read: the client re-serialises creationTimestamp.
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-cm"), data={"a": "1"}))
    cm = core.read_namespaced_config_map("py-cm", ns)
    stale_rv = cm.metadata.resource_version
    created = cm.metadata.creation_timestamp.isoformat()
    cm.data["a"] = "2"
    replaced = core.replace_namespaced_config_map("py-cm", ns, cm)
    out["replace"] = {
        "data": replaced.data,
        "creationTimestampKept": replaced.metadata.creation_timestamp.isoformat() == created,
        "uidKept": replaced.metadata.uid == cm.metadata.uid,
    }

    # A replace carrying the resourceVersion read before the last write is a conflict.
    cm.metadata.resource_version = stale_rv
    cm.data["a"] = "3"
    try:
        core.replace_namespaced_config_map("py-cm", ns, cm)
        out["staleReplace"] = {"status": 200}
    except ApiException as e:
        out["staleReplace"] = {"status": e.status, "reason": json.loads(e.body).get("reason")}

    # patch_namespaced_deployment_scale: a strategic merge patch of the Scale.
    apps.create_namespaced_deployment(ns, client.V1Deployment(
        metadata=client.V1ObjectMeta(name="py-deploy"),
        spec=client.V1DeploymentSpec(
            replicas=1,
            selector=client.V1LabelSelector(match_labels={"app": "py"}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": "py"}),
                spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx:1.27")]),
            ),
        ),
    ))
    scale = apps.patch_namespaced_deployment_scale("py-deploy", ns, {"spec": {"replicas": 3}})
    deploy = apps.read_namespaced_deployment("py-deploy", ns)
    out["scale"] = {"kind": scale.kind, "replicas": scale.spec.replicas, "deploymentReplicas": deploy.spec.replicas}

    # Server-side apply through the dynamic client; a second manager takes the field over with
    # force_conflicts=True, which the client sends as `?force=True`.
    configmaps = dynamic.DynamicClient(client.ApiClient()).resources.get(api_version="v1", kind="ConfigMap")
    # This client version sends only a serialised body with the apply content type.
    def manifest(value):
        return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "py-applied"}, "data": {"k": value}})

    configmaps.server_side_apply(body=manifest("a"), name="py-applied", namespace=ns, field_manager="py-one")
    try:
        configmaps.server_side_apply(body=manifest("b"), name="py-applied", namespace=ns, field_manager="py-two")
        out["applyConflict"] = {"status": 200}
    except ApiException as e:
        out["applyConflict"] = {"status": e.status}
    forced = configmaps.server_side_apply(body=manifest("b"), name="py-applied", namespace=ns, field_manager="py-two", force_conflicts=True)
    out["applyForce"] = {"data": dict(forced.data), "managers": sorted(m["manager"] for m in forced.metadata.managedFields)}

    print(json.dumps(out))


if __name__ == "__main__":
    main()

// Peer controller: the WebService reconcile written the way a controller-runtime user would write it.
// A benchmark anchor with the same contract as the product (see README.md).
package main

import (
	"context"
	"flag"
	"os"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

var gvk = schema.GroupVersionKind{Group: "apps.labhub.io", Version: "v1", Kind: "WebService"}

const finalizer = "webservice.labhub.io/cleanup"

// Like the product since its kubectl-ways change: no finalizer of our own (the child's controller
// ownerReference lets the garbage collector clean up); one a user put there is honoured.
var addFinalizer bool

type reconciler struct {
	client.Client
	recorder record.EventRecorder
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ws := &unstructured.Unstructured{}
	ws.SetGroupVersionKind(gvk)
	if err := r.Get(ctx, req.NamespacedName, ws); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	childKey := types.NamespacedName{Namespace: req.Namespace, Name: req.Name + "-desired"}

	if ws.GetDeletionTimestamp() != nil {
		if !controllerutil.ContainsFinalizer(ws, finalizer) {
			return ctrl.Result{}, nil
		}
		child := &corev1.ConfigMap{}
		if err := r.Get(ctx, childKey, child); err == nil && metav1.IsControlledBy(child, ws) {
			if err := r.Delete(ctx, child); client.IgnoreNotFound(err) != nil {
				return ctrl.Result{}, err
			}
		}
		base := ws.DeepCopy()
		controllerutil.RemoveFinalizer(ws, finalizer)
		return ctrl.Result{}, r.Patch(ctx, ws, client.MergeFrom(base))
	}

	if addFinalizer && !controllerutil.ContainsFinalizer(ws, finalizer) {
		base := ws.DeepCopy()
		controllerutil.AddFinalizer(ws, finalizer)
		if err := r.Patch(ctx, ws, client.MergeFrom(base)); err != nil {
			return ctrl.Result{}, err
		}
	}

	image, _, _ := unstructured.NestedString(ws.Object, "spec", "image")
	replicas, _, _ := unstructured.NestedInt64(ws.Object, "spec", "replicas")
	tier, _, _ := unstructured.NestedString(ws.Object, "spec", "tier")
	child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: childKey.Name, Namespace: childKey.Namespace}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, child, func() error {
		if child.Labels == nil {
			child.Labels = map[string]string{}
		}
		child.Labels["app.kubernetes.io/managed-by"] = "webservice-controller"
		if child.Data == nil {
			child.Data = map[string]string{}
		}
		child.Data["image"] = image
		child.Data["replicas"] = strconv.FormatInt(replicas, 10)
		child.Data["tier"] = tier
		return controllerutil.SetControllerReference(ws, child, r.Scheme())
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	// Like the product: an Event when a child is created or updated, none for a noop.
	switch op {
	case controllerutil.OperationResultCreated:
		r.recorder.Eventf(ws, corev1.EventTypeNormal, "Created", "created configmap/%s", childKey.Name)
	case controllerutil.OperationResultUpdated:
		r.recorder.Eventf(ws, corev1.EventTypeNormal, "Updated", "updated configmap/%s", childKey.Name)
	}

	gen := ws.GetGeneration()
	conds, err := readConditions(ws)
	if err != nil {
		return ctrl.Result{}, err
	}
	changed := meta.SetStatusCondition(&conds, metav1.Condition{
		Type: "Ready", Status: metav1.ConditionTrue, Reason: "Reconciled",
		Message: "child in sync", ObservedGeneration: gen,
	})
	og, _, _ := unstructured.NestedInt64(ws.Object, "status", "observedGeneration")
	sr, _, _ := unstructured.NestedInt64(ws.Object, "status", "replicas")
	if !changed && og == gen && sr == replicas {
		return ctrl.Result{}, nil
	}
	base := ws.DeepCopy()
	list := make([]interface{}, 0, len(conds))
	for i := range conds {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&conds[i])
		if err != nil {
			return ctrl.Result{}, err
		}
		list = append(list, m)
	}
	_ = unstructured.SetNestedField(ws.Object, gen, "status", "observedGeneration")
	_ = unstructured.SetNestedField(ws.Object, replicas, "status", "replicas")
	_ = unstructured.SetNestedSlice(ws.Object, list, "status", "conditions")
	return ctrl.Result{}, r.Status().Patch(ctx, ws, client.MergeFrom(base))
}

func readConditions(ws *unstructured.Unstructured) ([]metav1.Condition, error) {
	raw, _, _ := unstructured.NestedSlice(ws.Object, "status", "conditions")
	out := make([]metav1.Condition, 0, len(raw))
	for _, item := range raw {
		m, ok := item.(map[string]interface{})
		if !ok {
			continue
		}
		var c metav1.Condition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func main() {
	var namespace string
	var workers int
	var metricsAddr string
	flag.StringVar(&namespace, "namespace", "", "namespace to watch (empty: all)")
	flag.IntVar(&workers, "workers", 4, "concurrent reconciles")
	flag.StringVar(&metricsAddr, "metrics-bind-address", "0", "where to serve /metrics (0: nowhere)")
	flag.BoolVar(&addFinalizer, "add-finalizer", false, "add our finalizer to every WebService (the product did until its kubectl-ways change)")
	flag.Parse()
	ctrl.SetLogger(zap.New())

	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	opts := ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: metricsAddr}}
	if namespace != "" {
		opts.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}}
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), opts)
	if err != nil {
		os.Exit(1)
	}
	owner := &unstructured.Unstructured{}
	owner.SetGroupVersionKind(gvk)
	if err := ctrl.NewControllerManagedBy(mgr).
		For(owner).
		Owns(&corev1.ConfigMap{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(&reconciler{Client: mgr.GetClient(), recorder: mgr.GetEventRecorderFor("webservice-controller")}); err != nil {
		os.Exit(1)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		os.Exit(1)
	}
}

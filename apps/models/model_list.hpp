// The case models, one line each: HALOFLOW_MODEL(NAME) registers the model a case names with
// "model": "NAME", whose folder apps/models/NAME defines make_NAME_model(). The order is the order
// messages list them in. Adding a model: its folder, and its line here.
HALOFLOW_MODEL(seed)
HALOFLOW_MODEL(jacobi2d)
HALOFLOW_MODEL(heat3d)
HALOFLOW_MODEL(euler2d)

// The Python binding of the cint tree-sitter grammar, in the usual shape of
// tree-sitter bindings: `language()` returns a capsule that tree_sitter.Language takes.
#include <Python.h>

typedef struct TSLanguage TSLanguage;

TSLanguage *tree_sitter_cint(void);

static PyObject *binding_language(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(args)) {
    return PyCapsule_New(tree_sitter_cint(), "tree_sitter.Language", NULL);
}

static PyMethodDef methods[] = {
    {"language", binding_language, METH_NOARGS,
     "Get the tree-sitter language for cint."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_binding",
    .m_doc = NULL,
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__binding(void) { return PyModule_Create(&module); }

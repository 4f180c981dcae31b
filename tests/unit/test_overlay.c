/* placeholder: being written */
typedef int lj_placeholder_test_overlay;

// The few Vulkan names the corpus's host code uses (tests/corpus/files/): autosync
// does not have this header (it is not searched), g++ does.
#pragma once
#define VKAPI_ATTR
#define VKAPI_CALL
typedef unsigned int VkBool32;
typedef struct VkInstance_T *VkInstance;
typedef int VkResult;
#define VK_FALSE 0u
VkResult vkCreateInstance(const void *, const void *, VkInstance *);
